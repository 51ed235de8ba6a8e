import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { applyReplacements } from "../../../src/fn/builtins/apply-replacements.js";
import { FunctionError, type ResourceList } from "../../../src/fn/types.js";
import { detectSeqIndent, formatDocuments } from "../../../src/kpt/yaml/format.js";
import { codeBlock } from "../../util/codeblock.js";
import { resource } from "../../util/krm.js";

const HEADER = "apiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\n";

/** Runs as v0.1.1 unless told (the release real packages pin; v0.1.2's differences are tested apart). */
async function run(input: string, replacements: string, release = "v0.1.1"): Promise<string> {
  const texts = input.split(/^---\n/m);
  const items = texts.map((text) => parseDocument(text));
  const indents = items.map((doc, i) => detectSeqIndent(doc, texts[i] ?? ""));
  const rl: ResourceList = { items, functionConfig: parseDocument(HEADER + replacements), results: [] };
  const out = await applyReplacements.run(rl, { release });
  expect(out.results).toEqual([]);
  // Written with the kpt formatter, as a render writes the files.
  return formatDocuments(out.items, indents);
}

async function runError(input: string, replacements: string, release?: string): Promise<FunctionError> {
  try {
    await run(input, replacements, release);
  } catch (err) {
    if (err instanceof FunctionError) return err;
    throw err;
  }
  throw new Error("expected the function to fail");
}

const twoContainers = (name: string, kind = "Deployment", apiVersion = "apps/v1") =>
  resource(
    apiVersion,
    kind,
    name,
    codeBlock`
      spec:
        template:
          spec:
            containers:
              - image: nginx:1.7.9
                name: nginx-tagged
              - image: postgres:1.8.0
                name: postgresdb
    `,
  );

const copiedImage = (name: string, kind = "Deployment", apiVersion = "apps/v1") =>
  twoContainers(name, kind, apiVersion).replace("postgres:1.8.0", "nginx:1.7.9");

describe("apply-replacements", () => {
  it.each([
    {
      name: "copies a field between list items chosen by index",
      input: twoContainers("deploy"),
      replacements: codeBlock`
        replacements:
          - source:
              kind: Deployment
              name: deploy
              fieldPath: spec.template.spec.containers.0.image
            targets:
              - select:
                  kind: Deployment
                  name: deploy
                fieldPaths:
                  - spec.template.spec.containers.1.image
      `,
      expected: copiedImage("deploy"),
    },
    {
      name: "selects list items by a field value",
      input: `${twoContainers("deploy1")}---\n${twoContainers("deploy2")}`,
      replacements: codeBlock`
        replacements:
          - source:
              kind: Deployment
              name: deploy2
              fieldPath: spec.template.spec.containers.[name=nginx-tagged].image
            targets:
              - select:
                  name: deploy1
                fieldPaths:
                  - spec.template.spec.containers.[name=postgresdb].image
      `,
      expected: `${copiedImage("deploy1")}---\n${twoContainers("deploy2")}`,
    },
    {
      name: "sets every element a wildcard reaches",
      input: twoContainers("deploy"),
      replacements: codeBlock`
        replacements:
          - source:
              kind: Deployment
              fieldPath: spec.template.spec.containers.0.image
            targets:
              - select:
                  kind: Deployment
                fieldPaths:
                  - spec.template.spec.containers.*.image
      `,
      expected: copiedImage("deploy"),
    },
    {
      name: "rejects targets by name, and by kind",
      input: `${twoContainers("a")}---\n${twoContainers("b")}---\n${twoContainers("c", "StatefulSet")}`,
      replacements: codeBlock`
        replacements:
          - source:
              name: b
              fieldPath: spec.template.spec.containers.0.image
            targets:
              - select:
                  group: apps
                reject:
                  - name: b
                  - kind: StatefulSet
                fieldPaths:
                  - spec.template.spec.containers.1.image
      `,
      expected: `${copiedImage("a")}---\n${twoContainers("b")}---\n${twoContainers("c", "StatefulSet")}`,
    },
    {
      name: "selects by version and group",
      input: `${twoContainers("x", "Custom", "g1/v1")}---\n${twoContainers("x", "Custom", "g2/v2")}`,
      replacements: codeBlock`
        replacements:
          - source:
              group: g1
              fieldPath: spec.template.spec.containers.0.image
            targets:
              - select:
                  version: v2
                fieldPaths:
                  - spec.template.spec.containers.1.image
      `,
      expected: `${twoContainers("x", "Custom", "g1/v1")}---\n${copiedImage("x", "Custom", "g2/v2")}`,
    },
    {
      name: "selects targets by label",
      input: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: a
          labels:
            tier: web
        data:
          x: "1"
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: b
          labels:
            tier: db
        data:
          x: "2"
      `,
      replacements: codeBlock`
        replacements:
          - source:
              name: b
              fieldPath: metadata.labels.tier
            targets:
              - select:
                  labelSelector: tier in (web, cache)
                fieldPaths:
                  - data.x
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: a
          labels:
            tier: web
        data:
          x: db
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: b
          labels:
            tier: db
        data:
          x: "2"
      `,
    },
    {
      name: "copies a whole list over an empty mapping",
      input: codeBlock`
        apiVersion: v1
        kind: Pod
        metadata:
          name: pod
        spec:
          containers:
            - image: busybox # the image
              name: app
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: deploy
        spec:
          template:
            spec:
              containers: {}
      `,
      replacements: codeBlock`
        replacements:
          - source:
              kind: Pod
              fieldPath: spec.containers
            targets:
              - select:
                  kind: Deployment
                fieldPaths:
                  - spec.template.spec.containers
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: Pod
        metadata:
          name: pod
        spec:
          containers:
            - image: busybox # the image
              name: app
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: deploy
        spec:
          template:
            spec:
              containers:
              - image: busybox # the image
                name: app
      `,
    },
    {
      name: "copies numbers as they are written (the whole source node)",
      input: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          PORT: 8080
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          args:
            - HOST
            - PORT
      `,
      replacements: codeBlock`
        replacements:
          - source:
              kind: ConfigMap
              fieldPath: data.PORT
            targets:
              - select:
                  kind: Pod
                fieldPaths:
                  - spec.args.1
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          PORT: 8080
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          args:
            - HOST
            - 8080
      `,
    },
    {
      name: "replaces one part of a delimited string with one part of another",
      input: `${twoContainers("deploy1")}---\n${twoContainers("deploy2")}`,
      replacements: codeBlock`
        replacements:
          - source:
              name: deploy2
              fieldPath: spec.template.spec.containers.0.image
              options:
                delimiter: ":"
            targets:
              - select:
                  name: deploy1
                fieldPaths:
                  - spec.template.spec.containers.1.image
                options:
                  delimiter: ":"
      `,
      expected: `${twoContainers("deploy1").replace("postgres:1.8.0", "nginx:1.8.0")}---\n${twoContainers("deploy2")}`,
    },
    {
      name: "adds a part before (index -1) and after (index past the end) a delimited string",
      input: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          group: my
          before: group/config
          after: my/group
      `,
      replacements: codeBlock`
        replacements:
          - source:
              name: cm
              fieldPath: data.group
            targets:
              - select:
                  name: cm
                fieldPaths:
                  - data.before
                options:
                  delimiter: /
                  index: -1
              - select:
                  name: cm
                fieldPaths:
                  - data.after
                options:
                  delimiter: /
                  index: 5
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          group: my
          before: my/group/config
          after: my/group/my
      `,
    },
    {
      name: "reads and writes keys holding dots, bracketed or escaped",
      input: codeBlock`
        apiVersion: v1
        kind: Custom
        metadata:
          name: custom
          annotations:
            a.b.c/d-e: source
            f.g.h/i-j: target
            k.l: target
      `,
      replacements: codeBlock`
        replacements:
          - source:
              name: custom
              fieldPath: metadata.annotations.[a.b.c/d-e]
            targets:
              - select:
                  name: custom
                fieldPaths:
                  - metadata.annotations.[f.g.h/i-j]
                  - metadata.annotations.k\\.l
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: Custom
        metadata:
          name: custom
          annotations:
            a.b.c/d-e: source
            f.g.h/i-j: source
            k.l: source
      `,
    },
    {
      name: "creates missing target fields only when asked",
      input: codeBlock`
        apiVersion: v1
        kind: Pod
        metadata:
          name: pod
        spec:
          restartPolicy: OnFailure
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: hello
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: untouched
      `,
      replacements: codeBlock`
        replacements:
          - source:
              kind: Pod
              fieldPath: spec
            targets:
              - select:
                  name: hello
                fieldPaths:
                  - spec.template.spec
                options:
                  create: true
              - select:
                  name: untouched
                fieldPaths:
                  - spec.template.spec
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: Pod
        metadata:
          name: pod
        spec:
          restartPolicy: OnFailure
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: hello
        spec:
          template:
            spec:
              restartPolicy: OnFailure
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: untouched
      `,
    },
    {
      name: "creates a list element selected by a field value",
      input: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          image: redis:7
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          containers: []
      `,
      replacements: codeBlock`
        replacements:
          - source:
              kind: ConfigMap
              fieldPath: data.image
            targets:
              - select:
                  kind: Pod
                fieldPaths:
                  - spec.containers.[name=cache].image
                options:
                  create: true
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
          image: redis:7
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          containers: [{name: cache, image: 'redis:7'}]
      `,
    },
    {
      name: "defaults both field paths to metadata.name",
      input: codeBlock`
        apiVersion: v1
        kind: Namespace
        metadata:
          name: prod
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: old # goes with the node the source replaces
      `,
      replacements: codeBlock`
        replacements:
          - source:
              kind: Namespace
            targets:
              - select:
                  kind: ConfigMap
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: Namespace
        metadata:
          name: prod
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: prod
      `,
    },
  ])("$name", async ({ input, replacements, expected }) => {
    expect(await run(input, replacements)).toBe(expected);
  });

  it.each([
    {
      name: "a source selector matching several resources",
      input: `${twoContainers("a")}---\n${twoContainers("b")}`,
      replacements:
        "replacements:\n  - source:\n      kind: Deployment\n    targets:\n      - select:\n          kind: Deployment\n",
      message: "multiple matches for selector Deployment.[noVer].[noGrp]/[noName].[noNs]",
    },
    {
      name: "a source selector matching nothing",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      kind: Pod\n      name: p\n      namespace: ns\n    targets:\n      - select:\n          kind: Deployment\n",
      message: "nothing selected by Pod.[noVer].[noGrp]/p.ns",
    },
    {
      name: "a replacement without source",
      input: twoContainers("a"),
      replacements: "replacements:\n  - targets:\n      - select:\n          kind: Deployment\n",
      message: "replacements must specify a source and at least one target",
    },
    {
      name: "a target without select",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      name: a\n    targets:\n      - fieldPaths: [metadata.name]\n",
      message: "target must specify resources to select",
    },
    {
      name: "a source field that is missing",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      kind: Deployment\n      name: a\n      fieldPath: spec.replicas\n    targets:\n      - select:\n          kind: Deployment\n",
      message:
        "fieldPath `spec.replicas` is missing for replacement source Deployment.[noVer].[noGrp]/a.[noNs]",
    },
    {
      name: "a source index out of bounds",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      name: a\n      fieldPath: spec.template.spec.containers.0.name\n      options:\n        delimiter: /\n        index: 1\n    targets:\n      - select:\n          name: a\n",
      message: "options.index 1 is out of bounds for value nginx-tagged",
    },
    {
      name: "a delimiter on a list",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      name: a\n      fieldPath: spec.template.spec.containers\n      options:\n        delimiter: /\n    targets:\n      - select:\n          name: a\n",
      message: "delimiter option can only be used with scalar nodes",
    },
    {
      name: "create with a wildcard",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      name: a\n    targets:\n      - select:\n          name: a\n        fieldPaths: [spec.template.spec.containers.*.name]\n        options:\n          create: true\n",
      message: "cannot support create option in a multi-value target",
    },
    {
      name: "a target index past the end of the list",
      input: twoContainers("a"),
      replacements:
        "replacements:\n  - source:\n      name: a\n    targets:\n      - select:\n          name: a\n        fieldPaths: [spec.template.spec.containers.2.name]\n",
      message: "index 2 specified but only 2 elements found",
    },
  ])("fails on $name", async ({ input, replacements, message }) => {
    const err = await runError(input, replacements);
    expect(err.message).toBe(message);
    expect(err.results).toEqual([{ message, severity: "error" }]);
  });

  it("refuses a function config of another kind", async () => {
    const rl: ResourceList = {
      items: [],
      functionConfig: parseDocument("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"),
      results: [],
    };
    await expect(async () => applyReplacements.run(rl, {})).rejects.toThrow(
      "received functionConfig of kind ConfigMap and apiVersion v1, only functionConfig of kind ApplyReplacements and apiVersion fn.kpt.dev/v1alpha1 is supported",
    );
  });

  const pod = codeBlock`
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: cm
    data:
      PORT: 8080
      TIER: web
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: p # the pod
    spec:
      args:
        - PORT
        - "x"
  `;
  const to = (fieldPath: string, source = "data.PORT") =>
    `replacements:\n  - source:\n      kind: ConfigMap\n      fieldPath: ${source}\n    targets:\n      - select:\n          kind: Pod\n        fieldPaths:\n          - ${fieldPath}\n`;
  it.each([
    ["v0.1.1", to("spec.args.0"), "    - 8080\n"],
    ["v0.1.2", to("spec.args.0"), '    - "8080"\n'],
    ["v0.1.1", to("spec.args.1", "data.TIER"), "    - web\n"],
    ["v0.1.2", to("spec.args.1", "data.TIER"), '    - "web"\n'],
    ["v0.1.1", to("metadata.name", "data.TIER"), "  name: web\n"],
    ["v0.1.2", to("metadata.name", "data.TIER"), "  name: web # the pod\n"],
  ])(
    "%s writes a scalar target as %j: v0.1.1 copies the source node, v0.1.2 only its text",
    async (release, replacements, line) => {
      expect(await run(pod, replacements, release)).toContain(line);
    },
  );

  it.each([
    ["v0.1.1", undefined],
    ["v0.1.2", 'unable to find field "spec.missing" in replacement target'],
  ])("%s on a target field that is not there: %s", async (release, message) => {
    if (message === undefined) expect(await run(pod, to("spec.missing"), release)).toBe(pod);
    else expect((await runError(pod, to("spec.missing"), release)).message).toBe(message);
  });

  it.each([
    [
      "v0.1.0",
      "received functionConfig of kind  and apiVersion , only functionConfig of kind ApplyReplacements and apiVersion fn.kpt.dev/v1alpha1 is supported",
    ],
    ["v0.1.1", "FunctionConfig is missing. Expect `ApplyReplacements`"],
    ["v0.1.2", "FunctionConfig is missing. Expect `ApplyReplacements`"],
  ])("%s without a function config fails: %s", async (release, message) => {
    const rl: ResourceList = { items: [], results: [] };
    await expect(async () => applyReplacements.run(rl, { release })).rejects.toThrow(
      expect.objectContaining({ message, results: [{ message, severity: "error" }] }),
    );
  });

  it("names the wrong field of a malformed config", async () => {
    const err = await runError(twoContainers("a"), "replacements:\n  - source:\n      kind: [Deployment]\n");
    expect(err.message).toBe(
      "unable to convert functionConfig to replacements:\nreplacements[0].source.kind must be a string",
    );
  });
});
