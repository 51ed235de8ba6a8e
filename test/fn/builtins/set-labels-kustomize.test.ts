import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { setLabelsKustomize } from "../../../src/fn/builtins/set-labels.js";
import type { FunctionResult } from "../../../src/fn/types.js";
import { formatDocuments } from "../../../src/kpt/yaml/format.js";
import { codeBlock } from "../../util/codeblock.js";
import { kptfile, nested, resource, stream } from "../../util/krm.js";
import { parseItems } from "./catalog-harness.js";

/**
 * set-labels v0.1.3–v0.1.5, the kustomize-based releases (catalog tags set-labels/v0.1.3,
 * go/set-labels/v0.1.4, set-labels/v0.1.5). Output is written with kpt's formatter, as kpt writes it.
 */
async function run(
  release: string,
  resources: string,
  config?: string,
): Promise<{ output: string; results: FunctionResult[] }> {
  const out = await setLabelsKustomize.run(
    {
      items: parseItems(resources),
      results: [],
      ...(config === undefined ? {} : { functionConfig: parseDocument(config) }),
    },
    { release },
  );
  return { output: formatDocuments(out.items), results: out.results };
}

const cm = (name: string, rest = "") => resource("v1", "ConfigMap", name, rest);
/** The function config as a ConfigMap whose `data` is `data` (YAML lines, each ending in a newline). */
const functionInput = (data: string) => cm("function-input", `data:\n${data.replace(/^(?=.)/gm, "  ")}`);
const tierBackend = functionInput("tier: backend\n");
/** `labels:` holding `tier: backend`, indented by `indent` spaces. */
const tierLabel = (indent: number) => nested("labels", indent, "tier: backend\n");

describe("set-labels v0.1.x (kustomize's label transformer)", () => {
  it.each(["v0.1.3", "v0.1.4", "v0.1.5"])(
    "%s labels the Kptfile and a Deployment's selector and pod template, creating both, and reports nothing",
    async (release) => {
      const nginx = (rest: string) =>
        resource("apps/v1", "Deployment", "nginx", `  namespace: staging\n${rest}`);
      const input = stream(kptfile("app"), nginx("spec:\n  replicas: 3\n"));
      const { output, results } = await run(release, input, tierBackend);
      const spec = `spec:\n  replicas: 3\n  selector:\n    matchLabels:\n      tier: backend\n  template:\n    metadata:\n`;
      expect(output).toBe(
        stream(kptfile("app", tierLabel(2)), nginx(`${tierLabel(2)}${spec}${tierLabel(6)}`)),
      );
      expect(results).toEqual([]);
    },
  );

  it("labels every element's selector where a field spec path crosses a sequence (topology spread constraints)", async () => {
    const spec = codeBlock`
      spec:
        template:
          spec:
            topologySpreadConstraints:
              - labelSelector:
                  matchLabels:
                    app: db
              - maxSkew: 1
    `;
    const input = resource("apps/v1", "StatefulSet", "db", spec);
    const { output } = await run("v0.1.4", input, tierBackend);
    expect(output).toContain(
      [
        "      topologySpreadConstraints:",
        "      - labelSelector:",
        "          matchLabels:",
        "            app: db",
        "            tier: backend",
        "      - maxSkew: 1",
      ].join("\n"),
    );
  });

  it.each([
    // Before v0.1.5 kustomize left local config out of its resource map, so kpt deletes it.
    ["v0.1.4", ["the-map"]],
    ["v0.1.5", ["the-map", "local"]],
  ])("%s keeps only the resources %j, local config included from v0.1.5", async (release, names) => {
    const input = stream(
      cm("the-map"),
      cm("local", '  annotations:\n    config.kubernetes.io/local-config: "false"\n'),
    );
    const { output } = await run(release, input, tierBackend);
    expect([...output.matchAll(/^ {2}name: (\S+)$/gm)].map((m) => m[1])).toEqual(names);
  });

  it.each([
    // Every resource goes through Go's JSON: quoting is the encoder's, YAML 1.1 booleans are
    // booleans for yaml.v2 (v0.1.3, v0.1.4), numbers are float64 for v0.1.5's yaml.v3 round trip.
    ["v0.1.4", 'a: PROJECT_ID\nb: "8080"\nc: true\nd: 1000000\ne: 1.5\nf: null\n'],
    ["v0.1.5", 'a: PROJECT_ID\nb: "8080"\nc: "yes"\nd: 1e+06\ne: 1.5\nf: null\n'],
  ])("%s prints every value as the Go round trip does", async (release, data) => {
    const values = codeBlock`
      data:
        a: 'PROJECT_ID'
        b: '8080'
        c: yes
        d: 1000000
        e: 1.50
        f: ~
    `;
    const input = cm("m", `${tierLabel(2)}${values}`);
    const { output } = await run(release, input, tierBackend);
    expect(output.slice(output.lastIndexOf("\ndata:\n") + 7)).toBe(
      `${data.replace(/^/gm, "  ").trimEnd()}\n`,
    );
  });

  it("adds new labels in the Go encoder's key order (numbers by value) after the existing ones", async () => {
    const input = cm("m", "  labels:\n    zone: a\n");
    const config = functionInput("tier10: ten\ntier9: nine\n");
    const { output } = await run("v0.1.4", input, config);
    expect(output).toContain("  labels:\n    zone: a\n    tier9: nine\n    tier10: ten\n");
  });

  it.each([
    [
      "v0.1.4",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: x\nlabels:\n  a: b\n",
      "failed to configure function: function config must be a ConfigMap or SetLabelConfig",
    ],
    [
      "v0.1.5",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: Other\nmetadata:\n  name: x\n",
      "failed to configure function: `functionConfig` must be either a `ConfigMap` or `SetLabels`",
    ],
    [
      "v0.1.3",
      undefined,
      "failed to configure function: function config must be a ConfigMap or SetLabelConfig",
    ],
    [
      "v0.1.5",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabelConfig\nmetadata:\n  name: x\nlabels: {}\n",
      "failed to configure function: input label list cannot be empty",
    ],
    [
      "v0.1.5",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: x\nlabels:\n  a: b\nfieldSpecs: []\nadditionalLabelFields: []\n",
      "failed to configure function: `fieldSpecs` has been deprecated, please rename it to `additionalLabelFields`",
    ],
  ])("%s rejects config %#", async (release, config, message) => {
    const input = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
    const { output, results } = await run(release, input, config);
    expect(output).toBe(input);
    expect(results).toEqual([{ severity: "error", message }]);
  });

  it.each([
    ["v0.1.4", "fieldSpecs"],
    ["v0.1.5", "additionalLabelFields"],
  ])("%s also labels the %s of the kinds they select", async (release, field) => {
    const spec = "spec:\n  selector:\n    labels:\n      foo: bar\n";
    const input = resource("dev.example.com/v1", "MyResource", "mine", spec);
    const config = resource(
      "fn.kpt.dev/v1alpha1",
      "SetLabelConfig",
      "my-config",
      codeBlock`
      labels:
        color: orange
      ${field}:
        - kind: MyResource
          group: dev.example.com
          path: spec/selector/labels
          create: true
    `,
    );
    const { output } = await run(release, input, config);
    expect(output).toContain("    labels:\n      foo: bar\n      color: orange\n");
  });

  it("refuses two resources with one id, as kustomize's resource map does (namespace default is no namespace)", async () => {
    const input = stream(cm("cm"), cm("cm", "  namespace: default\n"));
    const { results } = await run("v0.1.4", input, tierBackend);
    expect(results).toEqual([
      {
        severity: "error",
        message:
          "failed to run function: may not add resource with an already registered id: ~G_v1_ConfigMap|default|cm",
      },
    ]);
  });
});
