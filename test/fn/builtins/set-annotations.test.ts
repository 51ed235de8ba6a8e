import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { setAnnotations } from "../../../src/fn/builtins/set-annotations.js";
import { formatDocuments } from "../../../src/kpt/yaml/format.js";
import { codeBlock } from "../../util/codeblock.js";
import { nested, resource, stream } from "../../util/krm.js";
import { parseItems, runBuiltin } from "./catalog-harness.js";

/** Runs the given release and writes the output with kpt's formatter. */
async function runRelease(release: string, resources: string, config: string) {
  const out = await setAnnotations.run(
    { items: parseItems(resources), results: [], functionConfig: parseDocument(config) },
    { release },
  );
  return { output: formatDocuments(out.items), results: out.results };
}

const cm = (name: string, rest = "") => resource("v1", "ConfigMap", name, rest);
const config = cm("my-config", "data:\n  fruit: apple\n  color: orange\n");
const annotations = (indent: number, lines: string) => nested("annotations", indent, lines);
/** The annotations kpt keeps a resource's file and index in. */
const fileOf = (path: string, index?: string) =>
  annotations(
    2,
    `internal.config.kubernetes.io/path: ${path}\n${index === undefined ? "" : `internal.config.kubernetes.io/index: "${index}"\n`}`,
  );

describe("set-annotations", () => {
  const statefulSet = (rest: string) => resource("apps/v1", "StatefulSet", "db", rest);
  const mine = (rest: string) => resource("example.com/v1", "MyOwnKind", "mine", rest);
  const other = (rest = "") => resource("example.com/v1", "Other", "other", rest);
  const a1 = annotations(2, 'a: "1"\n');
  it.each([
    [
      "adds annotations to metadata of every resource, in key order, and reports each field it set (v0.1.5)",
      stream(
        cm("the-map", "data:\n  some-key: some-value\n"),
        resource("v1", "Namespace", "ns", annotations(2, "color: blue # replaced\n")),
      ),
      config,
      stream(
        cm("the-map", `${annotations(2, "color: orange\nfruit: apple\n")}data:\n  some-key: some-value\n`),
        resource("v1", "Namespace", "ns", annotations(2, "color: orange # replaced\nfruit: apple\n")),
      ),
      // one field of one file (the two resources carry no file annotations: the same key, as the Go map's)
      [
        {
          message: 'set annotations: {"color":"orange","fruit":"apple"}',
          field: { path: "metadata.annotations" },
          file: {},
        },
      ],
    ],
    [
      "annotates pod templates of workloads, creating them as kustomize does",
      statefulSet("spec:\n  template:\n    spec:\n      containers: []\n"),
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: x\nannotations:\n  owner: team-a\n",
      statefulSet(
        `${annotations(2, "owner: team-a\n")}spec:\n  template:\n    spec:\n      containers: []\n    metadata:\n${annotations(6, "owner: team-a\n")}`,
      ),
      undefined,
    ],
    [
      "also sets additionalAnnotationFields of the kinds they select",
      stream(mine("data: {}\n"), other()),
      resource(
        "fn.kpt.dev/v1alpha1",
        "SetAnnotations",
        "x",
        codeBlock`
          annotations:
            a: "1"
          additionalAnnotationFields:
            - path: data/selector/annotations
              kind: MyOwnKind
              create: true
        `,
      ),
      stream(mine(`${a1}data: { selector: { annotations: { a: "1" } } }\n`), other(a1)),
      undefined,
    ],
  ])("%s", async (_name, input, cfg, want, wantResults) => {
    const { output, results } = await runBuiltin(setAnnotations, input, cfg);
    expect(output).toBe(want);
    if (wantResults !== undefined) expect(results).toEqual(wantResults);
  });

  it("v0.1.5 reports each annotations field of each file, sorted by file, index and field; v0.1.4 reports nothing", async () => {
    const input = stream(
      resource("apps/v1", "Deployment", "web", `${fileOf("b.yaml", "1")}spec:\n  template:\n    spec: {}\n`),
      resource("v1", "Service", "web", fileOf("b.yaml", "0")),
      resource("v1", "Namespace", "a", fileOf("a.yaml")),
    );
    const cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  team: a&b <c>\n";
    const { results } = await runRelease("v0.1.5", input, cfg);
    // Go's json.Marshal escapes &, < and >
    const set = 'set annotations: {"team":"a\\u0026b \\u003cc\\u003e"}';
    expect(results).toEqual([
      { message: set, field: { path: "metadata.annotations" }, file: { path: "a.yaml" } },
      { message: set, field: { path: "metadata.annotations" }, file: { path: "b.yaml" } },
      { message: set, field: { path: "metadata.annotations" }, file: { path: "b.yaml", index: 1 } },
      {
        message: set,
        field: { path: "spec.template.metadata.annotations" },
        file: { path: "b.yaml", index: 1 },
      },
    ]);
    expect((await runRelease("v0.1.4", input, cfg)).results).toEqual([]);
    expect((await runRelease("v0.1.5", "", cfg)).results).toEqual([{ message: "no annotations applied" }]);
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

  it.each([
    // set-annotations/v0.1.3 (kustomize api v0.7.2) works on JSON and leaves local config out (kpt
    // deletes it); v0.1.4 edits the YAML in place and keeps local config.
    ["v0.1.3", "  name: app\n  annotations:\n    owner: PROJECT_ID\n    abc: def\n"],
    ["v0.1.4", "  name: app\n  annotations:\n    owner: 'PROJECT_ID'\n    abc: def\n---\n"],
  ])("%s annotates as its kustomize did", async (release, metadata) => {
    const input = stream(
      resource("v1", "Namespace", "app", annotations(2, "owner: 'PROJECT_ID'\n")),
      cm("local", annotations(2, 'config.kubernetes.io/local-config: "true"\n')),
    );
    const { output } = await runRelease(
      release,
      input,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  abc: def\n",
    );
    expect(output).toContain(metadata);
    expect(output.includes("name: local")).toBe(release === "v0.1.4");
  });

  it.each([
    ["v0.1.3", "failed to configure function: function config must be a ConfigMap or SetAnnotationConfig"],
    ["v0.1.4", undefined],
  ])("%s reads a SetAnnotations config only from v0.1.4", async (release, message) => {
    const config =
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: x\nannotations:\n  a: b\n";
    const { results } = await runRelease(
      release,
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
      config,
    );
    expect(results).toEqual(message === undefined ? [] : [{ severity: "error", message }]);
  });
  it("tells resources of one name apart by group, version, kind and namespace, and refuses a later one of a seen id", async () => {
    // Four resources named `a`: three ids, the fourth the second's (group apps, version v1, kind
    // Deployment, no namespace being "default"); a cluster-scoped kind has no namespace at all.
    const input = stream(
      cm("a"),
      resource("apps/v1", "Deployment", "a"),
      resource("v1", "Namespace", "a", "  namespace: x\n"),
      resource("apps/v1", "Deployment", "a", "  namespace: default\n"),
    );
    const { results } = await runRelease("v0.1.4", input, config);
    expect(results).toEqual([
      {
        severity: "error",
        message:
          "failed to run function: may not add resource with an already registered id: apps_v1_Deployment|default|a",
      },
    ]);
    const distinct = input.slice(0, input.lastIndexOf("---"));
    expect((await runRelease("v0.1.4", distinct, config)).results).toEqual([]);
  });
});
