import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";

/**
 * A builtin's promise (BuiltinFunction.untouched) lets the pipeline skip the folded-scalar restyle and
 * the file-annotation reconciling after it: the output must be what it is when nothing is skipped.
 */

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n";

function pipeline(...steps: string[]): string {
  return `${KPTFILE}pipeline:\n  mutators:\n${steps.join("")}`;
}

const SET_LABELS = "  - image: set-labels:v0.2.1\n    configMap:\n      team: a\n";
const SET_IMAGE = "  - image: set-image:v0.1.1\n    configMap:\n      name: nginx\n      newTag: '2'\n";

async function renderFiles(files: Record<string, string>): Promise<Record<string, string>> {
  const out = await render(treeFromText(files), "", {
    registry: defaultRegistry(),
    run: DEFAULT_RUN_OPTIONS,
  });
  expect(out.ok, out.error?.message).toBe(true);
  return treeToText(out.tree);
}

describe("what builtins promise to leave alone", () => {
  it("restyles a folded scalar read from a file after the first builtin, whatever the builtins promise", async () => {
    const cm = `${CM}data:\n  b: >\n    folded text\n    here\n`;
    const one = await renderFiles({ Kptfile: pipeline(SET_LABELS), "cm.yaml": cm });
    const three = await renderFiles({ Kptfile: pipeline(SET_LABELS, SET_IMAGE, SET_LABELS), "cm.yaml": cm });
    expect(one["cm.yaml"]).toContain('  b: "folded text here\\n"\n');
    expect(three["cm.yaml"]).toBe(one["cm.yaml"]);
  });

  it("restyles a folded scalar an array setter puts in, after builtins that wrote none", async () => {
    const setters =
      "  - image: apply-setters:v0.2.0\n    configMap:\n      items: |\n        - >\n          folded\n          text\n        - plain\n";
    const files = await renderFiles({
      Kptfile: pipeline(SET_LABELS, setters),
      "cm.yaml": `${CM}data:\n  list: # kpt-set: \${items}\n  - x\n`,
    });
    expect(files["cm.yaml"]).toContain(`  list: # kpt-set: \${items}\n  - "folded text\\n"\n  - plain\n`);
  });

  it("moves a resource whose path annotation a builtin set, after builtins that kept it", async () => {
    const annotate =
      "  - image: set-annotations:v0.1.4\n    configMap:\n      config.kubernetes.io/path: moved.yaml\n";
    const files = await renderFiles({ Kptfile: pipeline(SET_LABELS, annotate), "cm.yaml": CM });
    expect(files["cm.yaml"]).toBeUndefined();
    expect(files["moved.yaml"]).toContain("kind: ConfigMap");
  });

  it("promises nothing it cannot keep: a config that could reach a file annotation or write a folded scalar", () => {
    const registry = defaultRegistry();
    const promise = (image: string, config: string) => {
      const { fn, release } = registry.resolve(image);
      return fn.untouched?.(parseDocument(config), release);
    };
    const configMap = (data: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n${data}`;
    expect(promise("set-annotations:v0.1.4", configMap("  owner: me\n"))).toEqual({
      folded: true,
      fileAnnotations: true,
    });
    expect(
      promise("set-annotations:v0.1.4", configMap("  internal.config.kubernetes.io/index: '3'\n")),
    ).toMatchObject({ fileAnnotations: false });
    expect(promise("set-annotations:v0.1.3", configMap("  owner: me\n"))).toEqual({});
    expect(promise("apply-setters:v0.2.0", configMap("  a: b\n"))).toEqual({ folded: true });
    expect(promise("apply-setters:v0.2.0", configMap("  a: '- > x'\n"))).toEqual({ folded: false });
    const setImage = (extra: string) =>
      `apiVersion: fn.kpt.dev/v1alpha1\nkind: SetImage\nmetadata:\n  name: c\nimage:\n  name: nginx\n  newTag: '2'\n${extra}`;
    expect(promise("set-image:v0.1.1", setImage(""))).toEqual({ folded: true, fileAnnotations: true });
    expect(
      promise("set-image:v0.1.1", setImage("additionalImageFields:\n- path: metadata/annotations/x\n")),
    ).toMatchObject({ fileAnnotations: false });
    // A refused config promises nothing.
    expect(promise("set-image:v0.1.1", configMap("  newTag: '2'\n"))).toEqual({});
  });
});
