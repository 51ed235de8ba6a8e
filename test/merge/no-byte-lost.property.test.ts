import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TRANSIENT_ANNOTATIONS } from "../../src/kpt/annotations.js";
import type { FileTree } from "../../src/kpt/tree.js";
import { clonedPackage, mergePackage } from "../../src/merge/index.js";

/**
 * `pkg get` and `pkg update` never delete, empty or rewrite a file no merge changed: a YAML file with
 * no document (empty, blank, `---` only, comments only, CRLF, a BOM, no final line break) passes
 * through byte for byte as kpt copies it, on a get and on an update whichever side holds it; and no
 * annotation kpt uses while it works reaches a file.
 */

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: up\n";
const upstream = {
  repo: "https://example.com/blueprints.git",
  directory: "/up",
  ref: "v1",
  commit: "a".repeat(40),
};

const documentless = fc
  .record({
    lines: fc.array(
      fc.constantFrom(
        "",
        "  ",
        "---",
        "# a comment",
        "#\ttab",
        "  # indented",
        "# ünï ✓",
        "# kind: ConfigMap",
      ),
      { maxLength: 5 },
    ),
    eol: fc.constantFrom("\n", "\r\n"),
    bom: fc.boolean(),
    finalBreak: fc.boolean(),
  })
  .map(({ lines, eol, bom, finalBreak }) => {
    const body = lines.join(eol);
    return `${bom ? "\uFEFF" : ""}${body}${finalBreak && body !== "" ? eol : ""}`;
  });

const cm = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: "${value}"\n`;

const tree = (files: Record<string, string>): FileTree =>
  new Map(Object.entries(files).map(([p, t]) => [p, Buffer.from(t, "utf8")]));

function expectNoTransient(out: FileTree): void {
  for (const [path, bytes] of out) {
    for (const key of TRANSIENT_ANNOTATIONS)
      expect(bytes.toString("utf8"), `${path}: ${key}`).not.toContain(key);
  }
}

describe("pkg get and pkg update never lose a byte of a file no merge changed", () => {
  it("get copies files with no document byte for byte", () => {
    fc.assert(
      fc.property(fc.array(documentless, { minLength: 1, maxLength: 4 }), (texts) => {
        const files: Record<string, string> = { Kptfile: KPTFILE, "cm.yaml": cm("a", "1") };
        texts.forEach((t, i) => {
          files[`note-${i}.yaml`] = t;
        });
        const out = clonedPackage(tree(files), upstream, "down");
        for (const [i, t] of texts.entries()) expect(out.get(`note-${i}.yaml`)?.toString("utf8")).toBe(t);
        expectNoTransient(out);
      }),
      { numRuns: 100, seed: 35 },
    );
  });

  it("update keeps them, on either side, while it merges the resources beside them", () => {
    fc.assert(
      fc.property(documentless, documentless, (local, up) => {
        const original = tree({ Kptfile: KPTFILE, "cm.yaml": cm("a", "1"), "up-note.yaml": up });
        const updated = tree({ Kptfile: KPTFILE, "cm.yaml": cm("a", "2"), "up-note.yaml": up });
        const mine = clonedPackage(original, upstream, "down");
        mine.set("local-note.yaml", Buffer.from(local, "utf8"));
        const { tree: out } = mergePackage({ original, updated, local: mine });
        expect(out.get("local-note.yaml")?.toString("utf8")).toBe(local);
        expect(out.get("up-note.yaml")?.toString("utf8")).toBe(up);
        expect(out.get("cm.yaml")?.toString("utf8")).toContain('k: "2"');
        expectNoTransient(out);
      }),
      { numRuns: 100, seed: 35 },
    );
  });
});
