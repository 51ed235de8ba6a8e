import { describe, expect, it } from "vitest";
import { KptError } from "../../src/kpt/errors.js";
import {
  kptfileDocument,
  parseKptfile,
  readKptfileFields,
  readKptfileStruct,
} from "../../src/kpt/kptfile.js";
import { codeBlock } from "../util/codeblock.js";

describe("parseKptfile", () => {
  it("reads every kpt.dev/v1 section", () => {
    const { kptfile } = parseKptfile(
      codeBlock`
        apiVersion: kpt.dev/v1
        kind: Kptfile
        metadata:
          name: app
          annotations:
            config.kubernetes.io/local-config: true
        upstream:
          type: git
          git:
            repo: https://github.com/example/blueprints
            directory: /app
            ref: app/v3
          updateStrategy: resource-merge
        upstreamLock:
          type: git
          git:
            repo: https://github.com/example/blueprints
            directory: /app
            ref: app/v3
            commit: 0123456789abcdef0123456789abcdef01234567
        info:
          description: an app
          keywords: [web]
        pipeline:
          mutators:
            - image: gcr.io/kpt-fn/set-namespace:v0.4.1
              configMap:
                namespace: prod
              selectors:
                - kind: Deployment
            - exec: ./fn.sh
              configPath: setters.yaml
              exclude:
                - labels: {tier: db}
          validators:
            - image: kubeconform
        inventory:
          namespace: prod
          name: inv
          inventoryID: "42"
        status:
          conditions:
            - type: Rendered
              status: "True"
      `,
      "Kptfile",
    );
    expect(kptfile.metadata?.annotations).toEqual({ "config.kubernetes.io/local-config": "true" });
    expect(kptfile.upstream?.updateStrategy).toBe("resource-merge");
    expect(kptfile.upstreamLock?.git?.commit).toHaveLength(40);
    expect(kptfile.pipeline?.mutators?.map((f) => f.image ?? f.exec)).toEqual([
      "gcr.io/kpt-fn/set-namespace:v0.4.1",
      "./fn.sh",
    ]);
    expect(kptfile.pipeline?.mutators?.[1]?.exclude).toEqual([{ labels: { tier: "db" } }]);
    expect(kptfile.pipeline?.validators).toHaveLength(1);
  });

  it("refuses a key written twice in one mapping, naming both lines (resources may hold one twice; a Kptfile may not)", () => {
    const text =
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\npipeline:\n  mutators: []\n  mutators: []\n";
    const error = (() => {
      try {
        parseKptfile(text, "pkg/Kptfile");
      } catch (e) {
        return e as KptError & { kptDetail?: string };
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(KptError);
    expect(error?.message).toBe(
      'pkg/Kptfile:7:3: the key "mutators" is already defined at line 6 of this mapping; keep one of the two',
    );
    expect(error?.kptDetail).toBe(
      'yaml: unmarshal errors:\n  line 7: mapping key "mutators" already defined at line 6',
    );
  });

  it("accepts an empty pipeline", () => {
    const { kptfile } = parseKptfile(
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\npipeline:\n",
      "Kptfile",
    );
    expect(kptfile.pipeline).toBeNull();
  });

  const invalid: { name: string; text: string; message: string }[] = [
    {
      name: "an unknown top-level field, at its line",
      text: codeBlock`
        apiVersion: kpt.dev/v1
        kind: Kptfile
        metadata:
          name: a
        foo: 1
      `,
      message: 'pkg/Kptfile:5:1 (field foo): unknown field "foo"',
    },
    {
      name: "a function with both configMap and configPath",
      text: codeBlock`
        apiVersion: kpt.dev/v1
        kind: Kptfile
        metadata:
          name: a
        pipeline:
          mutators:
            - image: set-namespace
              configPath: x.yaml
              configMap:
                a: b
      `,
      message:
        "pkg/Kptfile:7:7 (field pipeline.mutators[0]): functionConfig must not specify both `configMap` and `configPath` at the same time",
    },
    {
      name: "a function with neither image nor exec",
      text: codeBlock`
        apiVersion: kpt.dev/v1
        kind: Kptfile
        metadata:
          name: a
        pipeline:
          validators:
            - configMap:
                a: b
      `,
      message:
        "pkg/Kptfile:7:7 (field pipeline.validators[0]): must specify a functon (`image` or `exec`) to execute",
    },
    {
      name: "a field of the wrong type",
      text: codeBlock`
        apiVersion: kpt.dev/v1
        kind: Kptfile
        metadata:
          name: a
        pipeline:
          mutators: 3
      `,
      message: "pkg/Kptfile:6:13 (field pipeline.mutators): expected a list, found number 3",
    },
    {
      name: "a configPath leaving the package",
      text: codeBlock`
        apiVersion: kpt.dev/v1
        kind: Kptfile
        metadata:
          name: a
        pipeline:
          mutators:
            - image: set-labels
              configPath: ../secrets.yaml
      `,
      message:
        "pkg/Kptfile:8:19 (field pipeline.mutators[0].configPath): path must not be outside the package",
    },
    {
      name: "an old schema version, with kpt's upgrade advice",
      text: "apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: a\n",
      message: 'pkg/Kptfile:1:13 (field apiVersion): the Kptfile has an old version ("v1alpha2")',
    },
    {
      name: "a YAML syntax error, at its line",
      text: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: [a\n",
      message: "pkg/Kptfile:5:1: invalid YAML",
    },
    {
      name: "two documents",
      text: "apiVersion: kpt.dev/v1\nkind: Kptfile\n---\napiVersion: kpt.dev/v1\nkind: Kptfile\n",
      message: "pkg/Kptfile: the Kptfile holds 2 YAML documents; keep exactly one",
    },
  ];

  it.each(invalid)("rejects $name", ({ text, message }) => {
    let error: unknown;
    try {
      parseKptfile(text, "pkg/Kptfile");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KptError);
    expect((error as Error).message).toContain(message);
  });

  it("keeps the document editable with its comments", () => {
    const text = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a # the name\n";
    const { doc } = parseKptfile(text, "Kptfile");
    doc.setIn(["info", "description"], "d");
    expect(doc.toString()).toContain("name: a # the name");
  });
});

describe("the Kptfile readers beside kpt's", () => {
  const DOWNSTREAM = codeBlock`
    apiVersion: kpt.dev/v1
    kind: Kptfile
    metadata:
      name: basens # the package
      annotations:
        porchlight.dev/channels: stable
        count: 3
    upstream:
      git: {repo: https://github.com/acme/blueprints, ref: basens/v2}
    upstreamLock:
      git: {ref: basens/v2, commit: abc}
      oci: {image: registry.example/basens@sha256:00}
  `;

  it.each<[string, string, unknown]>([
    [
      "reads annotations (string values), upstream and lock",
      DOWNSTREAM,
      {
        annotations: { "porchlight.dev/channels": "stable" },
        upstreamRepo: "https://github.com/acme/blueprints",
        lockRef: "basens/v2",
        lockCommit: "abc",
        lockImage: "registry.example/basens@sha256:00",
      },
    ],
    [
      "finds nothing in a part of another shape",
      "upstream: [a]\nupstreamLock: {git: {ref: 7}}\nmetadata: {annotations: x}\n",
      { annotations: {} },
    ],
    ["finds nothing in text that is no YAML", "metadata: {name: [\n", { annotations: {} }],
    [
      "finds nothing in two documents",
      "metadata: {annotations: {a: b}}\n---\nkind: Kptfile\n",
      { annotations: {} },
    ],
    [
      "finds nothing in a key defined twice",
      "metadata: {}\nmetadata: {annotations: {a: b}}\n",
      { annotations: {} },
    ],
    ["finds nothing in an empty file or a list", "", { annotations: {} }],
    [
      "never throws where aliases expand past yaml's limit",
      `metadata: {annotations: {a: b}}\na: &a [x]\n${Array.from({ length: 200 }, (_, i) => `b${i}: [*a, *a, *a, *a, *a]`).join("\n")}\n`,
      { annotations: {} },
    ],
  ])("readKptfileFields %s", (_, text, fields) => {
    expect(readKptfileFields(text)).toEqual(fields);
  });

  it("readKptfileStruct reads string leaves as their text and names the file of a Kptfile it cannot read", () => {
    expect(readKptfileStruct("metadata: {name: app}\ninfo: {description: 1.0}\n", "a/Kptfile")).toEqual({
      metadata: { name: "app" },
      info: { description: "1.0" },
    });
    expect(() => readKptfileStruct("metadata: [\n", "a/Kptfile")).toThrow(/^a\/Kptfile: invalid YAML: /);
    expect(() => readKptfileStruct("- a\n", "a/Kptfile")).toThrow(
      "a/Kptfile: the Kptfile is not a YAML mapping",
    );
  });

  it("kptfileDocument keeps comments and layout through an edit, and names the file of text that is no YAML", () => {
    const doc = kptfileDocument(DOWNSTREAM, "Kptfile");
    doc.deleteIn(["upstreamLock", "oci"]);
    expect(doc.toString()).toContain("  name: basens # the package\n");
    expect(doc.toString()).not.toContain("oci:");
    expect(() => kptfileDocument("a: b\na: c\n", "pkg/Kptfile")).toThrow(
      /^pkg\/Kptfile: invalid YAML: Map keys must be unique/,
    );
  });
});
