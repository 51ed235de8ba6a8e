import { describe, expect, it } from "vitest";
import { setAnnotations } from "../../../src/fn/builtins/set-annotations.js";
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

describe("set-annotations", () => {
  it("adds annotations to metadata of every resource, in key order, and reports nothing", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: the-map
      data:
        some-key: some-value
      ---
      apiVersion: v1
      kind: Namespace
      metadata:
        name: ns
        annotations:
          color: blue # replaced
    `;
    const { output, results } = await runBuiltin(setAnnotations, input, config);
    expect(output).toBe(codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: the-map
        annotations:
          color: orange
          fruit: apple
      data:
        some-key: some-value
      ---
      apiVersion: v1
      kind: Namespace
      metadata:
        name: ns
        annotations:
          color: orange # replaced
          fruit: apple
    `);
    expect(results).toEqual([]);
  });

  it("annotates pod templates of workloads, creating them as kustomize does", async () => {
    const input = codeBlock`
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: db
      spec:
        template:
          spec:
            containers: []
    `;
    const cfg =
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: x\nannotations:\n  owner: team-a\n";
    const { output } = await runBuiltin(setAnnotations, input, cfg);
    expect(output).toBe(codeBlock`
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: db
        annotations:
          owner: team-a
      spec:
        template:
          spec:
            containers: []
          metadata:
            annotations:
              owner: team-a
    `);
  });

  it("also sets additionalAnnotationFields of the kinds they select", async () => {
    const input = codeBlock`
      apiVersion: example.com/v1
      kind: MyOwnKind
      metadata:
        name: mine
      data: {}
      ---
      apiVersion: example.com/v1
      kind: Other
      metadata:
        name: other
    `;
    const cfg = codeBlock`
      apiVersion: fn.kpt.dev/v1alpha1
      kind: SetAnnotations
      metadata:
        name: x
      annotations:
        a: "1"
      additionalAnnotationFields:
        - path: data/selector/annotations
          kind: MyOwnKind
          create: true
    `;
    const { output } = await runBuiltin(setAnnotations, input, cfg);
    expect(output).toBe(codeBlock`
      apiVersion: example.com/v1
      kind: MyOwnKind
      metadata:
        name: mine
        annotations:
          a: "1"
      data: { selector: { annotations: { a: "1" } } }
      ---
      apiVersion: example.com/v1
      kind: Other
      metadata:
        name: other
        annotations:
          a: "1"
    `);
  });

  it.each([
    // The message of set-annotations/v0.1.4 (tests/set-annotations/empty-list/simple).
    [undefined, "failed to configure function: `functionConfig` must be a `ConfigMap` or `SetAnnotations`"],
    [
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
      "failed to configure function: input annotation list cannot be empty",
    ],
    [
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: x\nannotations:\n  a: b\nfieldSpecs: []\nadditionalAnnotationFields: []\n",
      "failed to configure function: `fieldSpecs` has been deprecated, please rename it to `additionalAnnotationFields`",
    ],
  ])("rejects a bad config (%#)", async (cfg, message) => {
    const input = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
    const { output, results } = await runBuiltin(setAnnotations, input, cfg);
    expect(output).toBe(input);
    expect(results).toEqual([expect.objectContaining({ severity: "error", message })]);
  });
});
