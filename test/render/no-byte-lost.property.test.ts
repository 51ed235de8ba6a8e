import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { TRANSIENT_ANNOTATIONS } from "../../src/kpt/annotations.js";
import type { FileTree } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";

/**
 * The invariant users rely on when they keep files of every shape in a package: a render rewrites
 * only the files its items came from. A YAML file that holds no document (empty, blank, `---` or
 * `...` markers, comments only, with or without a final line break, CRLF, a BOM, tabs in comments)
 * gives no item and passes through byte for byte, as kpt leaves it; files that are not YAML too; and
 * no annotation kpt uses while rendering ever reaches a file.
 */

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";

const PIPELINES: Record<string, string> = {
  none: "",
  "set-labels": "pipeline:\n  mutators:\n    - image: set-labels:v0.2.1\n      configMap:\n        team: a\n",
  "set-annotations":
    "pipeline:\n  mutators:\n    - image: set-annotations:v0.1.4\n      configMap:\n        owner: me\n",
};

/** One line of a file with no document: blank, spaces, a marker or a comment. */
const documentlessLine = fc.oneof(
  fc.constant(""),
  fc.constant("  "),
  fc.constant("---"),
  fc.constantFrom("# a comment", "#", "#\ttab inside", "  # indented", "# ünïcödé ✓", "# kind: ConfigMap"),
  fc.constant("# apiVersion: v1"),
);

/** A whole file with no document: lines joined by LF or CRLF, maybe a BOM, maybe no final break. */
const documentlessFile = fc
  .record({
    lines: fc.array(documentlessLine, { maxLength: 6 }),
    eol: fc.constantFrom("\n", "\r\n"),
    bom: fc.boolean(),
    finalBreak: fc.boolean(),
    endMarker: fc.boolean(),
  })
  .map(({ lines, eol, bom, finalBreak, endMarker }) => {
    const body = [...lines, ...(endMarker ? ["---", "# after", "..."] : [])].join(eol);
    return `${bom ? "\uFEFF" : ""}${body}${finalBreak && body !== "" ? eol : ""}`;
  });

/** A resource file, so the render has items to write back beside the document-less files. */
const resourceFile = fc
  .record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), comment: fc.boolean(), value: fc.integer() })
  .map(
    ({ name, comment, value }) =>
      `${comment ? "# head\n" : ""}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: "${value}"\n`,
  );

const packageFiles = fc.record({
  pipeline: fc.constantFrom(...Object.keys(PIPELINES)),
  documentless: fc.array(documentlessFile, { minLength: 1, maxLength: 4 }),
  resources: fc.array(resourceFile, { maxLength: 3 }),
  ext: fc.constantFrom("yaml", "yml"),
});

async function renderTree(tree: FileTree) {
  return render(tree, "", { registry: defaultRegistry(), run: DEFAULT_RUN_OPTIONS });
}

describe("a render never loses a byte of a file it had no item from", () => {
  it("passes files with no document through byte for byte and writes no transient annotation", async () => {
    await fc.assert(
      fc.asyncProperty(packageFiles, async ({ pipeline, documentless, resources, ext }) => {
        const tree: FileTree = new Map([["Kptfile", Buffer.from(KPTFILE + PIPELINES[pipeline])]]);
        for (const [i, text] of documentless.entries()) {
          tree.set(`empty-${i}.${ext}`, Buffer.from(text, "utf8"));
          tree.set(`sub/dir/note-${i}.yaml`, Buffer.from(text, "utf8"));
        }
        for (const [i, text] of resources.entries()) tree.set(`r${i}.yaml`, Buffer.from(text, "utf8"));
        tree.set("README.md", Buffer.from("# readme\r\n"));
        const out = await renderTree(tree);
        expect(out.ok, out.error?.message).toBe(true);
        for (const [path, bytes] of tree) {
          if (path.includes("empty-") || path.includes("note-") || path === "README.md") {
            expect(out.tree.get(path), path).toEqual(bytes);
          }
        }
        for (const [path, bytes] of out.tree) {
          const text = bytes.toString("utf8");
          for (const key of TRANSIENT_ANNOTATIONS) expect(text, `${path} holds ${key}`).not.toContain(key);
        }
        // The second time changes nothing: what a render wrote, it leaves as it is.
        const again = await renderTree(out.tree);
        expect(again.ok, again.error?.message).toBe(true);
        expect(new Map(again.tree)).toEqual(new Map(out.tree));
      }),
      { numRuns: 60, seed: 35 },
    );
  });

  it("keeps a comment-only file beside a resource file that a function empties", async () => {
    const tree: FileTree = new Map([
      [
        "Kptfile",
        Buffer.from(
          `${KPTFILE}pipeline:\n  mutators:\n    - image: starlark:v0.4.3\n      configMap:\n        source: ctx.resource_list["items"] = []\n`,
        ),
      ],
      ["cm.yaml", Buffer.from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")],
      ["disabled.yaml", Buffer.from("# apiVersion: v1\n# kind: ConfigMap\n")],
    ]);
    const out = await renderTree(tree);
    expect(out.ok, out.error?.message).toBe(true);
    // kpt deletes a file whose every resource a function removed, and never one it read none from.
    expect(out.tree.has("cm.yaml")).toBe(false);
    expect(out.tree.get("disabled.yaml")?.toString()).toBe("# apiVersion: v1\n# kind: ConfigMap\n");
  });
});
