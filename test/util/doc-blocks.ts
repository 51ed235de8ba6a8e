import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The project's root: README.md and docs/ are read from here. */
export const PROJECT = join(import.meta.dirname, "../..");

/** A fenced code block of README.md or a page of docs/, as a reader sees it. */
export interface DocBlock {
  /** The page, relative to the project: `README.md`, `docs/config.md`. */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The fence's info string: `yaml`, `sh`, `text`, or empty. */
  lang: string;
  /** The block's first non-empty line, trimmed: how a test names the block it runs. */
  first: string;
  /** The block's text, with a final newline. */
  text: string;
}

/** The pages whose examples the tests run: README.md and every page of docs/. */
export function docPages(): string[] {
  const docs = readdirSync(join(PROJECT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/** Every fenced block of a page (backtick fences of three or more; a longer fence holds shorter ones). */
export function blocksOf(file: string): DocBlock[] {
  const lines = readFileSync(join(PROJECT, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A fence may be indented (a block inside a list item): its lines lose that indentation.
    const open = /^( *)(`{3,})(.*)$/.exec(lines[i] ?? "");
    if (!open) continue;
    const indent = open[1] ?? "";
    const fence = open[2] ?? "```";
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && (lines[j] ?? "").trim() !== fence) {
      const line = lines[j] ?? "";
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
      j++;
    }
    const first = body.find((l) => l.trim() !== "")?.trim() ?? "";
    blocks.push({ file, line: i + 1, lang: (open[3] ?? "").trim(), first, text: `${body.join("\n")}\n` });
    i = j;
  }
  return blocks;
}

/**
 * The block of `file` whose first non-empty line is `first`: how a test takes a docs example to run it.
 * test/docs/coverage.test.ts reads these calls in the tests' sources and fails for any block of README.md
 * or docs/ that no test takes, so write `file` and `first` as literal strings.
 */
export function docBlock(file: string, first: string): DocBlock {
  const found = docBlocks(file, first);
  if (found.length !== 1) {
    throw new Error(
      `${file}: ${found.length} code blocks start with ${JSON.stringify(first)}; use docBlocks`,
    );
  }
  return found[0] as DocBlock;
}

/** Every block of `file` whose first non-empty line is `first` (at least one), as docBlock names them. */
export function docBlocks(file: string, first: string): DocBlock[] {
  const found = blocksOf(file).filter((b) => b.first === first);
  if (found.length === 0) {
    throw new Error(
      `${file}: no code block starts with ${JSON.stringify(first)}; update the test to the page`,
    );
  }
  return found;
}

/**
 * The commands of a shell block as a user types them: a line ending in `\` joined with the next, each
 * with the `# …` lines right under it (what it prints; `…` stands for text left out). A comment after a
 * blank line is narration, not output.
 */
export function shellSteps(block: DocBlock): { line: string; expected: string[] }[] {
  const joined: string[] = [];
  for (const raw of block.text.split("\n")) {
    const prev = joined.at(-1);
    if (prev?.endsWith("\\")) joined[joined.length - 1] = `${prev.slice(0, -1).trimEnd()} ${raw.trim()}`;
    else joined.push(raw);
  }
  const steps: { line: string; expected: string[] }[] = [];
  let outputOf: { line: string; expected: string[] } | undefined;
  for (const line of joined) {
    if (line.trim() === "") {
      outputOf = undefined;
      continue;
    }
    if (line.startsWith("#")) {
      outputOf?.expected.push(line.replace(/^# ?/, ""));
      continue;
    }
    outputOf = { line: line.replace(/\s+#.*$/, ""), expected: [] };
    steps.push(outputOf);
  }
  return steps;
}
