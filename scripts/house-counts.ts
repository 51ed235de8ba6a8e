/**
 * `npx tsx scripts/house-counts.ts [DIR] [--exclude SUBDIR]… [--list as|unknown|nonnull|long]`: the counts
 * issue #37 tracks, read off the TypeScript syntax tree of every `.ts` file under DIR (default `src`):
 * `as` expressions (`as const` counted apart), `as unknown as`, non-null `!` assertions (and how many of
 * them have a comment on their line or the line above), and functions longer than 60 and 100 lines.
 * `--list` prints each place of one kind, longest functions first.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

interface Place {
  file: string;
  line: number;
  text: string;
}

interface Counts {
  as: Place[];
  asConst: Place[];
  asUnknownAs: Place[];
  nonNull: Place[];
  nonNullUncommented: Place[];
  functions: (Place & { lines: number })[];
}

function sources(dir: string, exclude: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return exclude.includes(path) ? [] : sources(path, exclude);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

/** A comment on the `!`'s own line, or a line above it holding only a comment. */
function commented(lines: readonly string[], line: number): boolean {
  if (/\/\/|\/\*/.test(lines[line] ?? "")) return true;
  const above = (lines[line - 1] ?? "").trim();
  return above.startsWith("//") || above.startsWith("/*") || above.startsWith("*");
}

function count(files: readonly string[], root: string): Counts {
  const c: Counts = {
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
    const file = relative(root, path);
    const place = (node: ts.Node): Place => {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      return { file, line: line + 1, text: (lines[line] ?? "").trim() };
    };
    const visit = (node: ts.Node): void => {
      if (ts.isAsExpression(node)) {
        if (ts.isTypeReferenceNode(node.type) && node.type.getText(source) === "const")
          c.asConst.push(place(node));
        else c.as.push(place(node));
        if (
          ts.isAsExpression(node.expression) &&
          node.expression.type.kind === ts.SyntaxKind.UnknownKeyword
        ) {
          c.asUnknownAs.push(place(node));
        }
      }
      if (ts.isNonNullExpression(node)) {
        // the `!`'s own line: an expression may start lines above it
        const line = source.getLineAndCharacterOfPosition(node.getEnd() - 1).line;
        const p = { file, line: line + 1, text: (lines[line] ?? "").trim() };
        c.nonNull.push(p);
        if (!commented(lines, line)) c.nonNullUncommented.push(p);
      }
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        c.functions.push({ ...place(node), text: functionName(node), lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return c;
}

function main(args: readonly string[]): number {
  const exclude: string[] = [];
  let list: string | undefined;
  let dir = "src";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--exclude" || arg === "--list") {
      const value = args[++i];
      if (!value) {
        process.stderr.write(`${arg} needs a value\n`);
        return 2;
      }
      if (arg === "--exclude") exclude.push(value);
      else list = value;
    } else if (arg) dir = arg;
  }
  const root = process.cwd();
  const c = count(sources(dir, exclude), root);
  const over = (n: number) => c.functions.filter((f) => f.lines > n);
  const lists: Record<string, Place[]> = {
    as: c.as,
    unknown: c.asUnknownAs,
    nonnull: c.nonNull,
    uncommented: c.nonNullUncommented,
    long: over(100).sort((a, b) => b.lines - a.lines),
    long60: over(60).sort((a, b) => b.lines - a.lines),
  };
  if (list) {
    const places = lists[list];
    if (!places) {
      process.stderr.write(`--list takes one of ${Object.keys(lists).join(", ")}\n`);
      return 2;
    }
    for (const p of places) {
      const size = "lines" in p ? ` ${p.lines}` : "";
      process.stdout.write(`${p.file}:${p.line}${size} ${p.text}\n`);
    }
    return 0;
  }
  const rows: [string, number][] = [
    ["as (not as const)", c.as.length],
    ["as const", c.asConst.length],
    ["as unknown as", c.asUnknownAs.length],
    ["non-null !", c.nonNull.length],
    ["non-null ! without a comment", c.nonNullUncommented.length],
    ["functions > 100 lines", over(100).length],
    ["functions > 60 lines", over(60).length],
  ];
  for (const [name, n] of rows) process.stdout.write(`${name.padEnd(30)}${n}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
