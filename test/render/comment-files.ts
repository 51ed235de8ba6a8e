import fc from "fast-check";
import {
  blockScalarLines,
  generatedMapping,
  type Insertion,
  inserted,
  laidOutYaml,
  layouts,
} from "../kpt/yaml/generated-yaml.js";
import type { RenderMode } from "./bounded-render.js";

/**
 * Whole resource files for the property test of blank lines, comments and `---` separators
 * (comment-lines.property.test.ts): one to three KRM resources (apiVersion, kind, metadata.name, then a
 * generated body of nested mappings, lists and scalars in any indentation), with lines put in at any
 * position — blank lines, lines of spaces, bare `#`, `# `, `# text` at every column from 0 to deeper
 * than the content, line comments — and lines of the same kinds and `---` separators before the first
 * document (a blank first line then `#`: issue 55), between documents (twice in a row, with comments
 * after them) and after the last. The same seed gives the same files.
 */

/** The comments put in: the bare and empty ones first, as they were what stopped the renders. */
const COMMENTS = ["#", "# ", "# c", "#x", "#  two"] as const;

/**
 * Scalars after `key: ` or `- `. Left out, and why:
 * - `""` (an empty value, `k: ` or `- `): comment lines around an empty list item and after a document's
 *   last empty value through a function are differences kpt-compat.md lists as open.
 */
const scalar = fc.constantFrom(
  "a",
  "1",
  "'q'",
  '"d"',
  "x y",
  "|\n  l1\n  l2",
  "[a, b]",
  "{k: v}",
  "~",
  "a # c",
);
const key = fc.constantFrom("k", "name", "spec", "items", "data", "z", "labels");

/** A line before, between or after the documents. */
const filler = fc.constantFrom("", "  ", ...COMMENTS, "  # c", "    #", "---");

const insertion: fc.Arbitrary<Insertion> = fc.record({
  at: fc.nat(),
  what: fc.constantFrom<Insertion["what"]>(
    "empty",
    "spaces line",
    "comment",
    "comment, empty",
    "comment before",
    "comment at",
    "comment at",
    "spaces",
    "line comment",
  ),
  // deeper than the generated bodies reach
  column: fc.nat({ max: 12 }),
  text: fc.constantFrom(...COMMENTS),
});

const document = fc.record({
  body: generatedMapping(scalar, key, { seqInSeq: false, depthSize: "xsmall" }),
  layout: layouts,
  put: fc.array(insertion, { maxLength: 6 }),
});

/**
 * Shapes whose comparison with kpt is left out (each still renders within the budget), in the modes
 * named: differences this test found that are not fixed yet, or where kpt loses or copies a comment.
 * docs/kpt-compat.md lists them.
 */
const LEFT_OUT: readonly { shape: string; modes: readonly RenderMode[]; holds: (text: string) => boolean }[] =
  [
    {
      // kpt writes a blank line between them where porchlight does not, or none where porchlight does
      shape: "a document's last comment lines: one at column 0, then a deeper one",
      modes: ["none", "cat"],
      holds: (text) =>
        documents(text).some((lines) => {
          let atZero = false;
          for (const l of lines.slice(lastContent(lines) + 1)) {
            if (l.startsWith("#")) atZero = true;
            else if (atZero && l.trimStart().startsWith("#")) return true;
          }
          return false;
        }),
    },
    {
      // yaml.v3 ends a flow mapping that holds a foot with a `,` (`- {k: v,}`), porchlight does so for a
      // list's last item only; and kpt loses the comment lines above such an item where a blank line
      // parts them from it (`key:`, `#x`, blank, `  - {k: v}`)
      shape: "a flow mapping list item with a comment line next to it",
      modes: ["none", "cat"],
      holds: (text) =>
        /^ *- +\{[^\n]*\} *\n( *\n)* *#/m.test(text) || /^ *#[^\n]*\n([ \t]*\n)* *- +\{/m.test(text),
    },
    {
      // kpt loses the comment, or moves it, where the item before it holds nested blocks
      shape: "a comment line at a list's column, a blank line, then the list's next `-`",
      modes: ["none", "cat"],
      holds: (text) => /^( *)#.*\n([ \t]*\n)+\1- /m.test(text),
    },
    {
      // through a function kpt copies the last of them into the next document, after its first line
      // (`apiVersion: v1`, the comment, a blank line): kpt writes a comment twice
      shape: "a document's last comment lines at two columns or more, another document after it",
      modes: ["cat"],
      holds: (text) => {
        const docs = documents(text).filter((lines) => lastContent(lines) >= 0);
        return docs.slice(0, -1).some((lines) => {
          const cols = lines
            .slice(lastContent(lines) + 1)
            .filter((l) => l.trimStart().startsWith("#"))
            .map((l) => l.length - l.trimStart().length);
          return new Set(cols).size >= 2;
        });
      },
    },
  ];

/** The shape of LEFT_OUT that `text` holds for `mode`'s comparison with kpt, or undefined. */
export function leftOut(text: string, mode: RenderMode): string | undefined {
  return LEFT_OUT.find((l) => l.modes.includes(mode) && l.holds(text))?.shape;
}

/** A text's documents' lines, cut at its `---` lines. */
function documents(text: string): string[][] {
  const out: string[][] = [[]];
  for (const line of text.split("\n")) {
    if (/^---( |$)/.test(line)) out.push([]);
    else out[out.length - 1]?.push(line);
  }
  return out;
}

/** The index of the last line that is neither blank nor a comment (-1 for none). */
function lastContent(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = lines[i]?.trim() ?? "";
    if (t !== "" && !t.startsWith("#")) return i;
  }
  return -1;
}

/**
 * A line of spaces among a block scalar's lines is its text (`"l1\n  \n"`), which kpt and porchlight
 * write apart where a comment follows: written empty instead (docs/kpt-compat.md lists it).
 */
function noSpacesInBlockScalars(text: string): string {
  const lines = text.split("\n");
  for (const i of blockScalarLines(lines)) if (lines[i]?.trim() === "") lines[i] = "";
  return lines.join("\n");
}

export const commentFiles: fc.Arbitrary<string> = fc
  .record({
    // weighted towards a file that starts with what stopped the renders: blank lines, then comments
    head: fc.oneof(
      fc.array(filler, { maxLength: 4 }),
      fc.tuple(fc.constantFrom("", "  "), fc.constantFrom("#", "# ")).map((t) => [...t]),
    ),
    documents: fc.array(document, { minLength: 1, maxLength: 3 }),
    between: fc.array(fc.tuple(fc.array(filler, { maxLength: 2 }), fc.array(filler, { maxLength: 3 })), {
      minLength: 2,
      maxLength: 2,
    }),
    tail: fc.array(filler, { maxLength: 3 }),
    noFinalLineBreak: fc.boolean(),
  })
  .map(({ head, documents, between, tail, noFinalLineBreak }) => {
    const lines = (list: readonly string[]) => list.map((l) => `${l}\n`).join("");
    const docs = documents.map(({ body, layout, put }, i) =>
      inserted(
        `apiVersion: v1\nkind: X\nmetadata:\n  name: x${i}\n${laidOutYaml(body, 0, layout, true)}`,
        put,
        { outsideBlockScalars: true },
      ),
    );
    let text = lines(head);
    docs.forEach((doc, i) => {
      if (i > 0) {
        const [before = [], after = []] = between[i - 1] ?? [];
        text += lines([...before, "---", ...after]);
      }
      text += doc;
    });
    text += lines(tail);
    // no final line break only after content: the comments that end a text with none are where
    // kpt loses a foot (a deviation), and they differ more (docs/kpt-compat.md)
    const last = text.slice(text.lastIndexOf("\n", text.length - 2) + 1).trim();
    const content = last !== "" && !last.startsWith("#") && last !== "---";
    text = noSpacesInBlockScalars(text);
    return noFinalLineBreak && content ? text.replace(/\n$/, "") : text;
  });
