import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFnCommand } from "../../src/cli/fn.js";
import { defaultRegistry } from "../../src/fn/registry.js";
import { attribute, recordAction } from "../../src/kpt/attribution.js";
import { formatDocuments } from "../../src/kpt/yaml/format.js";
import { parseYamlFile } from "../../src/kpt/yaml/yamlfile.js";
import { captureIO } from "../util/cli-io.js";

/** Config Connector resources in the shapes kpt's attribution treats differently. */
const INPUT = `apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: a
  annotations:
    cnrm.cloud.google.com/blueprint: "cnrm/x/v1" # c
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: b
  annotations:
    other: x
    cnrm.cloud.google.com/blueprint: 'kpt-pkg'
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: {name: d}
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: e
  annotations: {}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: g
  annotations:
    cnrm.cloud.google.com/blueprint: x
---
apiVersion: cnrm.cloud.google.com/v1beta1
kind: X
metadata:
  name: h
---
apiVersion: iam.cnrm.cloud.google.com/v1beta1
kind: IAMPolicyMember
metadata:
  name: i
  annotations:
    cnrm.cloud.google.com/blueprint: ""
`;

/** What `kpt fn render` (v1.0.0-beta.56) wrote for INPUT, with no pipeline. */
const KPT_RENDERED = `apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: a
  annotations:
    cnrm.cloud.google.com/blueprint: "cnrm/x/v1,kpt-fn"
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: b
  annotations:
    other: x
    cnrm.cloud.google.com/blueprint: 'kpt-pkg-fn'
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: {name: d, annotations: {cnrm.cloud.google.com/blueprint: 'kpt-fn'}}
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: e
  annotations:
    cnrm.cloud.google.com/blueprint: 'kpt-fn'
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: g
  annotations:
    cnrm.cloud.google.com/blueprint: x
---
apiVersion: cnrm.cloud.google.com/v1beta1
kind: X
metadata:
  name: h
---
apiVersion: iam.cnrm.cloud.google.com/v1beta1
kind: IAMPolicyMember
metadata:
  name: i
  annotations:
    cnrm.cloud.google.com/blueprint: "kpt-fn"
`;

describe("recordAction: how kpt records a command group in the blueprint annotation", () => {
  it.each([
    ["", "fn", "kpt-fn"],
    ["cnrm/landing-zone/v0.5.2", "fn", "cnrm/landing-zone/v0.5.2,kpt-fn"],
    ["kpt-fn", "fn", "kpt-fn"],
    ["kpt-pkg", "fn", "kpt-pkg-fn"],
    ["kpt-fn-live", "pkg", "kpt-pkg-fn-live"],
    ["cnrm/a,kpt-pkg-live,other", "fn", "cnrm/a,kpt-pkg-fn-live,other"],
    // kpt keeps one list for every kpt part, so a second part carries the first one's groups too
    ["kpt-pkg,kpt-live", "fn", "kpt-pkg-fn,kpt-pkg-fn-fn-live"],
  ] as const)("%j + %s → %j", (current, group, want) => {
    expect(recordAction(current, group)).toBe(want);
  });
});

describe("attribution on render", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function render(env: NodeJS.ProcessEnv, input = INPUT): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), "attribution-"));
    dirs.push(dir);
    writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: kcc\n");
    writeFileSync(join(dir, "resources.yaml"), input);
    expect(await createFnCommand(defaultRegistry)(["render", dir], captureIO({ cwd: dir, env }))).toBe(0);
    return readFileSync(join(dir, "resources.yaml"), "utf8");
  }

  it("records kpt-fn on Config Connector resources exactly as kpt fn render writes them", async () => {
    expect(await render({})).toBe(KPT_RENDERED);
  });

  /** A resource of a Config Connector group, up to its `metadata:`. */
  const head = "apiVersion: foo.cnrm.cloud.google.com/v1\nkind: X\nmetadata:\n";
  /** The annotations field kpt appends, holding the blueprint annotation alone. */
  const set = "  annotations:\n    cnrm.cloud.google.com/blueprint: 'kpt-fn'\n";
  /** A resource whose annotations field has a last entry, for the new annotation to go after. */
  const annotated = `${head}  name: x\n  annotations:\n    a: b\n`;
  it.each([
    [
      // kyaml's SetAnnotation clears an empty `annotations` (no value, `{}`, `[]`: its comments go) and
      // appends a new one; metadata's foot stays on its last field, a blank line before the new key
      // (k8s-config-connector's samples: `annotations:` with no value above `name`); the second text as
      // kpt v1.0.0-beta.56's `fn render` wrote it, with no pipeline and with `exec: cat`
      "puts the annotation in a new annotations field after metadata's others where the field is empty or absent, as kpt does",
      [
        `${head}  annotations:\n  name: a\n  labels:\nspec: 1\n`,
        `${head}  annotations: {} # c\n  name: b # d\n`,
        `${head}  annotations: []\n  name: c\n  # foot\nspec: 1\n`,
        `${head}  name: d\n  # foot\nspec: 1\n`,
      ].join("---\n"),
      [
        `${head}  name: a\n  labels:\n${set}spec: 1\n`,
        `${head}  name: b # d\n${set}`,
        `${head}  name: c\n  # foot\n\n${set}spec: 1\n`,
        `${head}  name: d\n  # foot\n\n${set}spec: 1\n`,
      ].join("---\n"),
    ],
    [
      // yaml.v3 keeps a map's foot on its last key; kyaml appends the new key after it
      "writes a new blueprint annotation after the annotations' foot comment and a blank line, as kpt does",
      [`${annotated}  # foot\nspec: 1\n`, `${annotated}    # foot\nspec: 1\n`].join("---\n"),
      [
        `${annotated}    # foot\n\n    cnrm.cloud.google.com/blueprint: 'kpt-fn'\nspec: 1\n`,
        `${annotated}    # foot\n\n    cnrm.cloud.google.com/blueprint: 'kpt-fn'\nspec: 1\n`,
      ].join("---\n"),
    ],
    [
      // the comment at metadata's column below `labels:`, then a blank line: kpt writes the comment, a
      // blank line, then its annotations (with no pipeline and with `exec: cat`); porchlight wrote the
      // annotations first
      "puts a new annotations field after metadata's foot after a nested last field, as kpt does",
      `${head}  name: x\n  labels:\n    app: c\n  # c\n\nspec: 1\n`,
      `${head}  name: x\n  labels:\n    app: c\n  # c\n\n${set}spec: 1\n`,
    ],
    [
      // kpt: `name: x` then the annotations, `# foot` gone (docs/kpt-compat.md, Deviations)
      "keeps a foot comment after an empty annotations field that kpt clears (kpt loses it)",
      `${head}  name: x\n  annotations: {}\n  # foot\nspec: 1\n`,
      `${head}  name: x\n  # foot\n\n${set}spec: 1\n`,
    ],
  ])("%s", async (_name, input, kpt) => {
    expect(await render({}, input)).toBe(kpt);
  });

  it("leaves them alone where KPT_DISABLE_ATTRIBUTION is set, as kpt does", async () => {
    // kpt still drops the empty annotations of "e" (it does with no pipeline), and touches nothing else
    const without = INPUT.replace("  name: e\n  annotations: {}\n", "  name: e\n");
    expect(await render({ KPT_DISABLE_ATTRIBUTION: "true" })).toBe(without);
  });

  it("records nothing on a resource whose metadata is empty", () => {
    const { docs } = parseYamlFile(
      "apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata: {}\n",
      "r.yaml",
    );
    for (const d of docs) attribute(d, "pkg");
    expect(formatDocuments(docs)).toBe(
      "apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata: {}\n",
    );
  });
});
