import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { tsSources } from "./house-counts.js";

const SRC = join(import.meta.dirname, "..", "src");
/**
 * The comment model: its readers and writers (kpt/yaml/comments/) fill and read `yaml`'s comment slots,
 * kpt/yaml/comments.ts is the door to them, and the fast reader (kpt/yaml/yaml-fast.ts) sets the slots as
 * it makes the nodes. The rest of the YAML engine (kpt/yaml/: the formatter, the other readers) goes
 * through the door like everyone else.
 */
const MODEL = join(SRC, "kpt", "yaml", "comments");
const MODEL_FILES = [join(SRC, "kpt", "yaml", "comments.ts"), join(SRC, "kpt", "yaml", "yaml-fast.ts")];

/**
 * Where a file reads or writes `yaml`'s comment slots: every `.commentBefore` (no other object of the
 * project has one), and `.comment` in a file that imports `yaml` (a GitHub comment is no YAML node).
 */
function slotAccesses(file: string, text = readFileSync(file, "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const importsYaml = source.statements.some(
    (s) =>
      ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === "yaml",
  );
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const name = ts.isPropertyAccessExpression(node)
      ? node.name.text
      : ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)
        ? node.argumentExpression.text
        : undefined;
    if (name === "commentBefore" || (name === "comment" && importsYaml)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${relative(SRC, file)}:${line + 1}: ${node.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("yaml's comment slots", () => {
  it("are read and written only by the comment model (src/kpt/yaml/comments.ts is the door)", () => {
    const found = tsSources(SRC, [MODEL])
      .filter((f) => !MODEL_FILES.includes(f))
      .flatMap((f) => slotAccesses(f));
    expect(
      found,
      "read and write comments through src/kpt/yaml/comments.ts (headComment, lineComment, footComment, copyComments)",
    ).toEqual([]);
  });

  it("finds a consumer's own access, and leaves a GitHub comment alone", () => {
    const file = join(SRC, "render", "probe.ts");
    const direct =
      'import { Scalar } from "yaml";\nconst s = new Scalar(1);\ns.comment = "c";\ns["commentBefore"] = "h";\n';
    expect(slotAccesses(file, direct)).toEqual([
      "render/probe.ts:3: s.comment",
      'render/probe.ts:4: s["commentBefore"]',
    ]);
    const github = "export const body = (payload: { comment: { body: string } }) => payload.comment.body;\n";
    expect(slotAccesses(file, github)).toEqual([]);
  });
});
