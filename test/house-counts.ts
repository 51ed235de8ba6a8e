/**
 * The counts issue #37 tracks, read off the TypeScript syntax tree: `as` expressions (`as const` apart),
 * `as unknown as`, non-null `!` assertions (and those with no comment on their line or the line above),
 * and each function's length in lines. test/house-nonnull.test.ts and scripts/house-counts.ts use it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export interface Place {
  /** The file, relative to the root given to houseCounts. */
  file: string;
  /** 1-based. */
  line: number;
  /** The line's text, trimmed (for a function: its name). */
  text: string;
}

export interface HouseCounts {
  as: Place[];
  asConst: Place[];
  asUnknownAs: Place[];
  nonNull: Place[];
  nonNullUncommented: Place[];
  functions: (Place & { lines: number })[];
}

/** The `.ts` files below `dir` (not `.d.ts`), leaving out the directories in `exclude` (paths as joined). */
export function tsSources(dir: string, exclude: readonly string[] = []): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return exclude.includes(path) ? [] : tsSources(path, exclude);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

function functionName(node: ts.SignatureDeclaration): string {
  const name = node.name;
  if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name))) return name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

/** The 0-based lines a comment of the file is on (a comment over several lines: each of them). */
function commentLines(source: ts.SourceFile): Set<number> {
  const text = source.text;
  const seen = new Set<number>();
  const lines = new Set<number>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      const first = source.getLineAndCharacterOfPosition(r.pos).line;
      const last = source.getLineAndCharacterOfPosition(r.end).line;
      for (let l = first; l <= last; l++) lines.add(l);
    }
  };
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return lines;
}

/** Counts the files (paths), each named relative to `root`. */
export function houseCounts(files: readonly string[], root: string): HouseCounts {
  const c: HouseCounts = {
    as: [],
    asConst: [],
    asUnknownAs: [],
    nonNull: [],
    nonNullUncommented: [],
    functions: [],
  };
  for (const path of files) {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const comments = commentLines(source);
    const file = relative(root, path);
    const at = (line: number): Place => ({ file, line: line + 1, text: (lines[line] ?? "").trim() });
    const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
    const visit = (node: ts.Node): void => {
      if (ts.isAsExpression(node)) {
        const place = at(lineOf(node.getStart(source)));
        if (ts.isTypeReferenceNode(node.type) && node.type.getText(source) === "const") c.asConst.push(place);
        else c.as.push(place);
        if (
          ts.isAsExpression(node.expression) &&
          node.expression.type.kind === ts.SyntaxKind.UnknownKeyword
        ) {
          c.asUnknownAs.push(place);
        }
      }
      if (ts.isNonNullExpression(node)) {
        // the `!`'s own line: the expression may start lines above it
        const line = lineOf(node.getEnd() - 1);
        c.nonNull.push(at(line));
        if (!comments.has(line) && !comments.has(line - 1)) c.nonNullUncommented.push(at(line));
      }
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = lineOf(node.getStart(source));
        const lines = lineOf(node.getEnd()) - start + 1;
        c.functions.push({ ...at(start), text: functionName(node), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return c;
}
