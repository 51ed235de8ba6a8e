import { describe, expect, it } from "vitest";
import { setLabels } from "../../../src/fn/builtins/set-labels.js";
import { codeBlock } from "../../util/codeblock.js";
import { runBuiltin } from "./catalog-harness.js";

const config = codeBlock`
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: my-config
  data:
    fruit: apple
    color: orange
`;

describe("set-labels", () => {
  it.each([
    [
      "sets metadata labels and a Service's selector, counting every label at every field",
      codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: the-map
        data:
          some-key: some-value
        ---
        apiVersion: v1
        kind: Service
        metadata:
          name: the-service
          namespace: the-namespace
        spec:
          selector:
            foo: bar
      `,
      config,
      codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: the-map
          labels:
            color: orange
            fruit: apple
        data:
          some-key: some-value
        ---
        apiVersion: v1
        kind: Service
        metadata:
          name: the-service
          namespace: the-namespace
          labels:
            color: orange
            fruit: apple
        spec:
          selector:
            foo: bar
            color: orange
            fruit: apple
      `,
      [{ message: "set 6 labels in total", severity: "info" }],
    ],
    [
      "updates a Deployment's selector and pod template, and only existing topology selectors",
      codeBlock`
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: app
          labels:
            color: blue # was blue
        spec:
          template:
            spec:
              topologySpreadConstraints:
                - maxSkew: 1
                  labelSelector:
                    matchLabels:
                      color: blue
                - maxSkew: 2
      `,
      config,
      codeBlock`
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: app
          labels:
            color: orange # was blue
            fruit: apple
        spec:
          template:
            spec:
              topologySpreadConstraints:
                - maxSkew: 1
                  labelSelector:
                    matchLabels:
                      color: orange
                - maxSkew: 2
            metadata:
              labels:
                color: orange
                fruit: apple
          selector:
            matchLabels:
              color: orange
              fruit: apple
      `,
      [{ message: "set 10 labels in total", severity: "info" }],
    ],
    [
      "updates CronJob job templates and leaves a Job's missing selector alone",
      codeBlock`
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: cron
        spec:
          jobTemplate:
            spec:
              template:
                metadata: {}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: job
        spec:
          template: {}
      `,
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: x\nlabels:\n  tier: backend\n",
      codeBlock`
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: cron
          labels:
            tier: backend
        spec:
          jobTemplate:
            spec:
              template:
                metadata: { labels: { tier: backend } }
            metadata:
              labels:
                tier: backend
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: job
          labels:
            tier: backend
        spec:
          template: { metadata: { labels: { tier: backend } } }
      `,
      undefined,
    ],
    [
      "skips local-config resources and quotes values that would not read back as strings",
      codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: local
          annotations:
            config.kubernetes.io/local-config: "true"
        ---
        apiVersion: v1
        kind: Secret
        metadata:
          name: s
      `,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  enabled: "true"\n  port: "8080"\n',
      codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: local
          annotations:
            config.kubernetes.io/local-config: "true"
        ---
        apiVersion: v1
        kind: Secret
        metadata:
          name: s
          labels:
            enabled: "true"
            port: "8080"
      `,
      undefined,
    ],
  ])("%s", async (_name, input, cfg, want, wantResults) => {
    const { output, results } = await runBuiltin(setLabels, input, cfg);
    expect(output).toBe(want);
    if (wantResults !== undefined) expect(results).toEqual(wantResults);
  });

  it.each([
    ["no resources", "", config, "info", "no input resources"],
    [
      "an empty label list",
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: x\n",
      "warning",
      "no `labels` arguments are given in FunctionConfig",
    ],
  ])("reports %s", async (_name, input, cfg, severity, message) => {
    const { results } = await runBuiltin(setLabels, input, cfg);
    expect(results).toEqual([expect.objectContaining({ severity, message })]);
  });

  // The catalog's tests/set-labels at go/set-labels/v0.2.0 and set-labels/v0.2.1: the SDK's config
  // handling fails the function (exit code 1) with these results.
  it.each([
    ["no config", undefined, [{ severity: "info", message: "`FunctionConfig` is not given" }]],
    [
      "a config of another kind",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: BadKind\nmetadata:\n  name: x\nlabels:\n  a: b\n",
      [
        {
          severity: "error",
          message:
            "unknown FunctionConfig `BadKind.fn.kpt.dev`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`",
        },
      ],
    ],
    [
      "labels given as a list",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: x\nlabels:\n  - color: orange\n",
      [
        {
          severity: "error",
          message:
            "unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal array into Go struct field SetLabels.labels of type map[string]string",
        },
      ],
    ],
  ])("fails on %s", async (_name, cfg, results) => {
    const run = runBuiltin(setLabels, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n", cfg);
    await expect(run).rejects.toMatchObject({
      exitCode: 1,
      stderr: "failed to evaluate function: error: function failure",
      results,
    });
  });
});
