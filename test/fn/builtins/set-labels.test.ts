import { describe, expect, it } from "vitest";
import { setLabels } from "../../../src/fn/builtins/set-labels.js";
import { nested, resource, stream } from "../../util/krm.js";
import { runBuiltin } from "./catalog-harness.js";

const cm = (name: string, rest = "") => resource("v1", "ConfigMap", name, rest);
const config = cm("my-config", "data:\n  fruit: apple\n  color: orange\n");
const labels = (indent: number, lines: string) => nested("labels", indent, lines);
/** The labels `config` sets, indented by `indent` spaces, under `key`. */
const fruitColor = (indent: number, key = "labels") => nested(key, indent, "color: orange\nfruit: apple\n");
const tier = (indent: number) => labels(indent, "tier: backend\n");
const service = (rest: string) =>
  resource("v1", "Service", "the-service", `  namespace: the-namespace\n${rest}`);
const deployment = (rest: string) => resource("apps/v1", "Deployment", "app", rest);
/** A pod template whose first topology spread constraint selects `color`, the second nothing. */
const topology = (color: string) =>
  `spec:\n  template:\n    spec:\n      topologySpreadConstraints:\n        - maxSkew: 1\n          labelSelector:\n            matchLabels:\n              color: ${color}\n        - maxSkew: 2\n`;
const cron = (rest: string) => resource("batch/v1", "CronJob", "cron", rest);
const job = (rest: string) => resource("batch/v1", "Job", "job", rest);
const secret = (rest = "") => resource("v1", "Secret", "s", rest);
const local = cm("local", nested("annotations", 2, 'config.kubernetes.io/local-config: "true"\n'));

describe("set-labels", () => {
  it.each([
    [
      "sets metadata labels and a Service's selector, counting every label at every field",
      stream(cm("the-map", "data:\n  some-key: some-value\n"), service("spec:\n  selector:\n    foo: bar\n")),
      config,
      stream(
        cm("the-map", `${fruitColor(2)}data:\n  some-key: some-value\n`),
        service(`${fruitColor(2)}spec:\n  selector:\n    foo: bar\n    color: orange\n    fruit: apple\n`),
      ),
      [{ message: "set 6 labels in total", severity: "info" }],
    ],
    [
      "updates a Deployment's selector and pod template, and only existing topology selectors",
      deployment(`${labels(2, "color: blue # was blue\n")}${topology("blue")}`),
      config,
      deployment(
        `${labels(2, "color: orange # was blue\nfruit: apple\n")}${topology("orange")}    metadata:\n${fruitColor(6)}  selector:\n${fruitColor(4, "matchLabels")}`,
      ),
      [{ message: "set 10 labels in total", severity: "info" }],
    ],
    [
      "updates CronJob job templates and leaves a Job's missing selector alone",
      stream(
        cron("spec:\n  jobTemplate:\n    spec:\n      template:\n        metadata: {}\n"),
        job("spec:\n  template: {}\n"),
      ),
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: x\nlabels:\n  tier: backend\n",
      stream(
        cron(
          `${tier(2)}spec:\n  jobTemplate:\n    spec:\n      template:\n        metadata: { labels: { tier: backend } }\n    metadata:\n${tier(6)}`,
        ),
        job(`${tier(2)}spec:\n  template: { metadata: { labels: { tier: backend } } }\n`),
      ),
      undefined,
    ],
    [
      "skips local-config resources and quotes values that would not read back as strings",
      stream(local, secret()),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  enabled: "true"\n  port: "8080"\n',
      stream(local, secret(labels(2, 'enabled: "true"\nport: "8080"\n'))),
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
