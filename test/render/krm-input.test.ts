import { describe, expect, it } from "vitest";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";
import { testRegistry } from "./harness.js";

/**
 * What kpt fn render does with input that is not KRM, and with files it only reads and writes back.
 * Every expected text here is what kpt v1.0.0-beta.56 printed or wrote for the same input.
 */
const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
const env = { registry: testRegistry(), run: DEFAULT_RUN_OPTIONS };

async function renderFiles(files: Record<string, string>) {
  const tree = treeFromText(files);
  const out = await render(tree, "", env);
  return { out, files: treeToText(out.tree), input: treeToText(tree) };
}

describe("a package with no pipeline refuses what is not KRM, as kpt does, and writes nothing", () => {
  it.each([
    ["values.yaml", "replicas: 3\n", "values.yaml: resource must have `apiVersion`"],
    ["list.yaml", "- a\n- b\n", "list.yaml: resource must have `apiVersion`"],
    ["sub/values.yaml", "a: 1\n", "sub/values.yaml: resource must have `apiVersion`"],
    ["n.yaml", "apiVersion: v1\nmetadata:\n  name: x\n", "n.yaml: resource must have `kind`"],
    ["n.yaml", "apiVersion: v1\nkind: X\n", "n.yaml: resource must have `metadata.name`"],
    [
      "c.yaml",
      'apiVersion: v1\nkind: X\nmetadata:\n  name: ""\n',
      "c.yaml: resource must have `metadata.name`",
    ],
    ["m.yaml", `${CM}---\nfoo: bar\n`, "m.yaml: resource must have `apiVersion`"],
  ])("%s holding %j", async (path, text, problem) => {
    const { out, files, input } = await renderFiles({ Kptfile: KPTFILE, "cm.yaml": CM, [path]: text });
    expect(out.ok).toBe(false);
    expect(out.error?.message).toBe(`input resource list must contain only KRM resources: ${problem}`);
    expect(files).toEqual(input);
  });

  it("a document that is a bare scalar fails as kpt's reader does, naming the file", async () => {
    const { out, files, input } = await renderFiles({ Kptfile: KPTFILE, "s.yaml": "hello\n" });
    expect(out.error?.message).toBe("s.yaml: wrong node kind: expected MappingNode but got ScalarNode");
    expect(files).toEqual(input);
  });

  it("a pipeline refuses the same input before its first function", async () => {
    const kptfile = `${KPTFILE}pipeline:\n  mutators:\n    - image: fixture-add\n`;
    const { out, files, input } = await renderFiles({ Kptfile: kptfile, "values.yaml": "replicas: 3\n" });
    expect(out.error?.message).toBe(
      "input resource list must contain only KRM resources: values.yaml: resource must have `apiVersion`",
    );
    expect(files).toEqual(input);
  });
});

describe("files kpt lets through without the KRM fields", () => {
  it("a Kustomization (by file name, or by kind) is read and written back, with no metadata added", async () => {
    const { out, files } = await renderFiles({
      Kptfile: KPTFILE,
      "kustomization.yaml": 'resources:\n    - a.yaml\n# c\nnamePrefix:   "x"\n',
      "k.yaml": "kind: Kustomization\nresources:\n- a.yaml\n",
    });
    expect(out.ok, out.error?.message).toBe(true);
    expect(files["kustomization.yaml"]).toBe('resources:\n- a.yaml\n# c\nnamePrefix: "x"\n');
    expect(files["k.yaml"]).toBe("kind: Kustomization\nresources:\n- a.yaml\n");
  });

  it("an empty metadata or annotations map is cleared, as kyaml's writer clears it", async () => {
    const { out, files } = await renderFiles({
      Kptfile: KPTFILE,
      "kustomization.yaml":
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: {}\nresources:\n- a.yaml\n",
      "c.yaml": `${CM}  annotations: {}\n  labels: {}\n`,
    });
    expect(out.ok, out.error?.message).toBe(true);
    expect(files["kustomization.yaml"]).toBe(
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a.yaml\n",
    );
    expect(files["c.yaml"]).toBe(`${CM}  labels: {}\n`);
  });

  it("a null document is dropped from its file", async () => {
    const { out, files } = await renderFiles({ Kptfile: KPTFILE, "e.yaml": `${CM}---\n~\n` });
    expect(out.ok, out.error?.message).toBe(true);
    expect(files["e.yaml"]).toBe(CM);
  });
});

describe("formatting kept through a render with no function", () => {
  it("keeps the blank line between a license header and the first key; a function's trip removes it", async () => {
    const header = "# Copyright 2020 x\n#\n# Licensed\n\n";
    const plain = await renderFiles({ Kptfile: KPTFILE, "cm.yaml": `${header}${CM}` });
    expect(plain.files["cm.yaml"]).toBe(`${header}${CM}`);
    const kptfile = `${KPTFILE}pipeline:\n  mutators:\n    - image: fixture-add\n`;
    const fn = await renderFiles({ Kptfile: kptfile, "cm.yaml": `${header}${CM}` });
    expect(fn.files["cm.yaml"]).toBe(`# Copyright 2020 x\n#\n# Licensed\n${CM}`);
  });

  it("writes folded scalars as kpt does, and double-quoted after a function as kpt's comment copy does", async () => {
    const cm = `${CM}data:\n  b: >\n    folded text\n    here\n  c: |+\n    keep\n\n  d: 'single'\n`;
    const plain = await renderFiles({ Kptfile: KPTFILE, "cm.yaml": cm });
    expect(plain.files["cm.yaml"]).toBe(
      `${CM}data:\n  b: >\n    folded text here\n\n  c: |+\n    keep\n\n  d: 'single'\n`,
    );
    const kptfile = `${KPTFILE}pipeline:\n  mutators:\n    - image: fixture-add\n`;
    const fn = await renderFiles({ Kptfile: kptfile, "cm.yaml": cm });
    expect(fn.files["cm.yaml"]).toBe(
      `${CM}data:\n  b: "folded text here\\n"\n  c: |+\n    keep\n\n  d: 'single'\n`,
    );
  });

  it("a block scalar that ends the file without a line break has none in its text (written |-)", async () => {
    const { files } = await renderFiles({
      Kptfile: KPTFILE,
      "cm.yaml": `${CM}data:\n  a: |\n    no newline at eof`,
    });
    expect(files["cm.yaml"]).toBe(`${CM}data:\n  a: |-\n    no newline at eof\n`);
  });

  it("drops a document of comments only before the first `---`, as kpt does", async () => {
    const { files } = await renderFiles({
      Kptfile: KPTFILE,
      "cm.yaml": `# Note:\n#   quickstart\n---\n${CM}`,
    });
    expect(files["cm.yaml"]).toBe(CM);
  });
});
