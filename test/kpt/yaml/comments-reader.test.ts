import { describe, expect, it } from "vitest";
import { parseResourceList } from "../../../src/kpt/resourcelist.js";
import {
  applyComments,
  applyCommonHead,
  applyItemComments,
  readTextComments,
  WholeFile,
} from "../../../src/kpt/yaml/comments/apply.js";
import { readComments } from "../../../src/kpt/yaml/comments/reader.js";
import { detectSeqIndent, formatDocuments } from "../../../src/kpt/yaml/format.js";
import { commonYamlHead } from "../../../src/kpt/yaml/yaml-fast.js";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";

/**
 * The structural comment reader, one table: a text, and the comments yaml.v3 gives its first document
 * (`doc`) and its nodes, each node named by its source text (a collection by its CST type).
 */
function table(text: string): Record<string, unknown> {
  const doc = readComments(text)[0]!;
  const out: Record<string, unknown> = {};
  if (doc.head !== undefined || doc.foot !== undefined || doc.endFeet)
    out.doc = { head: doc.head, foot: doc.foot, ...(doc.endFeet ? { endFeet: true } : {}) };
  for (const [token, c] of doc.nodes) {
    if (Object.keys(c).length === 0) continue;
    out["source" in token && typeof token.source === "string" ? token.source : token.type] = c;
  }
  return out;
}

const CASES: [string, string, Record<string, unknown>][] = [
  [
    "a head above the first key, a line comment after a value",
    "# h\na: 1 # l\n",
    { a: { head: "# h" }, 1: { line: "# l" } },
  ],
  [
    "comment lines a blank line ends, above the first key: the document's head",
    "# d\n\n# h\na: 1\n",
    { doc: { head: "# d", foot: undefined }, a: { head: "# h" } },
  ],
  [
    "a run below a value, ended by a blank line: the key's foot",
    "a: 1\n# f\n\nb: 2\n",
    { a: { foot: "# f" } },
  ],
  [
    "a run at a nested block's column before it closes: its last key's foot",
    "a:\n  b: 1\n  # f\nc: 2\n",
    { b: { foot: "# f" } },
  ],
  [
    "a run left of the open block: the foot of the entry it closes",
    "a:\n  b: 1\n# f\n\nc: 2\n",
    { a: { foot: "# f", footFromNext: true } },
  ],
  [
    "a head above `- ` that opens a mapping: the mapping's (its stem)",
    "# s\n- a: 1\n",
    { "block-map": { head: "# s" } },
  ],
  ["a comment after `key:` over a block: the key's line comment", "a: # l\n  b: 1\n", { a: { line: "# l" } }],
  [
    "a head above a later `- ` whose item holds no comment: its mapping's (a block read though no `#` is in it)",
    "a:\n- b: 1\n  c: 2\n# s\n- d: 1\n  e: 2\n",
    { "block-map": { head: "# s" } },
  ],
  [
    "a run after a nested block with no comment in it, left of its column: the foot of its last key",
    "a:\n  b:\n    c: 1\n  # f\nd: 2\n",
    { c: { foot: "# f" } },
  ],
  [
    "a run after a blank line at the end: the document's foot",
    "a: 1\n\n# end\n",
    { doc: { head: undefined, foot: "# end" } },
  ],
  [
    "an explicit start: its comment and the lines after it head the first key",
    "--- # s\n\n# h\na: 1\n",
    { a: { head: "# s\n\n# h", headBlanks: [1] } },
  ],
  [
    "blank lines after a head: one empty line in its text, the file's count of them beside it",
    "a:\n  # h\n\n\n  b: 1\n",
    { b: { head: "# h\n", headBlanks: [2] } },
  ],
  [
    "blank lines within a head and after it: a count for each stretch, in order",
    "a:\n  # x\n\n\n  # y\n\n  b: 1\n",
    { b: { head: "# x\n\n# y\n", headBlanks: [2, 1] } },
  ],
  [
    "a head after a foot cut from the same comment lines (left of the open block, a blank line after it): said so",
    "a:\n  k:\n # f\n\n    # h\n\n    b: 1\n",
    {
      b: { head: "# h\n", headBlanks: [1], headAfterFoot: true, foot: "# f" },
      "block-map": { keyFoot: true },
    },
  ],
  ["after a block scalar: the next key's head", "a: |\n  x\n# c\nb: 1\n", { b: { head: "# c" } }],
  ["below an item at the end: the item's foot", "a:\n- x\n# f\n", { x: { foot: "# f" } }],
  [
    "a run that closes a block sequence: no comment on a sequence's end, the next node's foot (kpt moves it there)",
    "a:\n  - - b: 1\n# x\n    # f\n\n  - - c: 2\n      d: 3\n",
    { b: { foot: "# x" }, c: { foot: "# f" } },
  ],
  [
    "at the end, a foot left of the open block and a run after a blank line: the root's last key's foot, then the document's (kpt writes both)",
    "a:\n  b: 1\n # f\n\n    # d\n",
    { doc: { head: undefined, foot: "# d" }, a: { foot: "# f" }, "block-map": { endFoot: true } },
  ],
  [
    "comment lines right below a block scalar in a list, at its column: the scalar's foot (kpt writes them there)",
    "a:\n  - >-\n    x\n  # f\nb: 1\n",
    { "    x\n": { foot: "# f" } },
  ],
  [
    "a run after a blank line, last before `---`: the document's foot (kpt cuts the `---` line away)",
    "a:\n  b: 1\n\n    # f\n---\nc: 2\n",
    { doc: { head: undefined, foot: "# f" } },
  ],
  [
    "a run a nested mapping's end takes (a piece at its column after its last value's foot): the mapping says so, and the document",
    "a:\n  b:\n    c: 1\n    # v\n  # e\nd: 2\n",
    {
      doc: { head: undefined, foot: undefined, endFeet: true },
      b: { foot: "# e" },
      c: { foot: "# v" },
      "block-map": { endFoot: true },
    },
  ],
  [
    "a foot after a `-` alone on its line, over a one-key mapping: the key's own, the mapping says so",
    "l:\n-\n  # f\n\n  a: 1\n",
    { a: { foot: "# f" }, "block-map": { keyFoot: true } },
  ],
  [
    "a foot the next key took after a scalar value, left of the block: handed back to the key before, said so",
    "x:\n  a: 1\n # f\n\n  b: 2\n",
    { a: { foot: "# f", footFromNext: true } },
  ],
  [
    "a foot right below a nested block's last value: the value's, no mark",
    "a:\n  - b: 1\n    # f\n\n  - c: 2\n",
    { b: { foot: "# f" } },
  ],
  [
    "at the end, a run left of the root's column then one after it, a blank line last: the document's foot (kpt writes a blank line above it)",
    "a:\n  b: 1\n# f\n # d\n\n",
    { doc: { head: undefined, foot: "# d" }, b: { foot: "# f" } },
  ],
  [
    "the same with two blank lines last: the root's last key's foot (kpt writes it right below)",
    "a:\n  b: 1\n# f\n # d\n\n\n",
    { a: { foot: "# d" }, b: { foot: "# f" }, "block-map": { endFoot: true } },
  ],
  [
    "the same in CRLF lines: as in LF lines (kpt writes each form's foot where it writes the LF form's)",
    "a:\r\n  b: 1\r\n# f\r\n # d\r\n\r\n",
    { doc: { head: undefined, foot: "# d" }, b: { foot: "# f" } },
  ],
  [
    "after a block scalar and a blank line, a run a blank line ends: the next item's head, not a foot (the scalar's own line breaks count as the scanner's)",
    "a:\n- run: |\n    x\n\n# c\n\n- b: 1\n  z: 2\n",
    { "block-map": { head: "# c\n", headBlanks: [1] } },
  ],
];

/**
 * Fixes found when the reader placed the comments of every test's files (the switch-over, issue #53):
 * a text, its table, and the bytes kpt v1.0.0-beta.56's `fn render` (no function) writes for it after
 * a resource's header, which the reader's comments, placed by apply.ts and written by format.ts, give.
 */
const RENDERED: [string, string, Record<string, unknown>, string][] = [
  [
    "a block scalar's header comment: the scalar's line comment (the CST holds it inside the token)",
    "k: | # c\n  l1\n",
    { "  l1\n": { line: "# c" } },
    "k: | # c\n  l1\n",
  ],
  [
    "a bare `#` after a block scalar's header, as it is",
    "k: | #\n  l1\n",
    { "  l1\n": { line: "#" } },
    "k: | #\n  l1\n",
  ],
  [
    "comment lines right above a last `---` with no line break after it: the document's foot (kpt's cut leaves that `---` in the piece)",
    "b: 1\n# A\n# END\n---",
    { doc: { head: undefined, foot: "# A\n# END" } },
    "b: 1\n\n# A\n# END\n",
  ],
  [
    "a run on the line right after a block scalar's text, a blank line after it: a foot (the token took the line break)",
    "a:\n  k: |\n    x\n  # c\n\n  m: 1\n",
    { k: { foot: "# c" } },
    "a:\n  k: |\n    x\n  # c\n\n  m: 1\n",
  ],
  [
    "a run after a blank line below a block scalar: the next key's head (the token took the blank line too)",
    "k: |\n  x\n\n# c\n\nm: 1\n",
    { m: { head: "# c\n", headBlanks: [1] } },
    "k: |\n  x\n# c\nm: 1\n",
  ],
];

const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";

/** `text` after the header, its comments placed from the reader's data, written as a render does. */
function written(text: string): string {
  const full = HEADER + text;
  const docs = parseYamlFile(full, "f.yaml").docs;
  const read = readTextComments(full);
  for (const doc of docs) applyComments(doc, read);
  return formatDocuments(
    docs,
    docs.map((d) => detectSeqIndent(d, full)),
  );
}

describe("readComments, where placing every test file's comments found it wrong", () => {
  it.each(RENDERED)("%s", (_name, text, want, kpt) => {
    expect(table(text)).toEqual(want);
    expect(written(text)).toBe(HEADER + kpt);
  });
});

describe("a licence header the fast reader read, placed from what it read", () => {
  // kpt's render writes the head as yaml.v3 cut it: the document's, a blank line after it, where a
  // blank line parts it from the first key; the first key's where none does (and after `---`)
  it.each([
    ["a blank line after it: the document's head", "# c\n# \n#\n\n\na: 1 # l\n", "# c\n# \n#\n\na: 1 # l\n"],
    ["right above the first key: the key's", "# c\n# d\na: 1\n", "# c\n# d\na: 1\n"],
    ["after `---`: the first key's", "---\n# c\na: 1\n---\n# d\nb: 2\n", "# c\na: 1\n---\n# d\nb: 2\n"],
  ])("%s", (_name, text, want) => {
    const { docs, fast } = parseYamlFile(text, "f.yaml");
    expect(fast).toBe(true);
    for (const doc of docs) {
      const head = commonYamlHead(doc);
      expect(head).toBeDefined();
      if (head) applyCommonHead(doc, head);
    }
    expect(
      formatDocuments(
        docs,
        docs.map((d) => detectSeqIndent(d, text)),
      ),
    ).toBe(want);
  });
});

/**
 * How kpt reads a ResourceList's items (a function's output) where the rules the reader replaced did not: the items
 * (after `items:`), and the files kpt v1.0.0-beta.56's `fn eval --exec` (a function printing the list)
 * writes of them, one an item, which the reader's comments of the whole list, placed item by item by
 * apply.ts, give.
 */
const ITEMS: [string, string, string[]][] = [
  [
    "comment lines after a blank line at the end of the list's last item: none of the item's (kpt drops them)",
    "- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n  data:\n    k: v\n\n    # c\n",
    ["apiVersion: v1\nkind: A\nmetadata:\n  name: a\ndata:\n  k: v\n"],
  ],
  [
    "comment lines after a blank line at the end of an item, a foot before them: the next item's second key's head",
    "- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n  data:\n    k: v\n    # f\n\n    # c\n" +
      "- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n",
    [
      "apiVersion: v1\nkind: A\nmetadata:\n  name: a\ndata:\n  k: v\n  # f\n",
      "apiVersion: v1\n# c\n\nkind: B\nmetadata:\n  name: b\n",
    ],
  ],
  [
    "comment lines over the first `- ` at another column than its dash (a licence header): the item's head",
    "  # licence\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n",
    ["# licence\napiVersion: v1\nkind: A\nmetadata:\n  name: a\n"],
  ],
];

/** The items of a ResourceList holding `items`, their comments placed from the reader's data, each written. */
function itemsWritten(items: string): string[] {
  const text = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}`;
  const read = readTextComments(text);
  return parseResourceList(text, "stdin").items.map((doc) => {
    applyItemComments(doc, read);
    return formatDocuments([doc]);
  });
}

describe("readComments of a ResourceList, its items placed one by one as kpt takes them out of it", () => {
  it.each(ITEMS)("%s", (_name, items, kpt) => {
    expect(itemsWritten(items)).toEqual(kpt);
  });
});

/**
 * The merge's pieces of a file (merge/yamldoc.ts cuts it at its `---` lines and parses each): a piece's
 * comments placed from the reader's reading of the whole file, which knows where kpt's cut starts the
 * piece; the bytes are kpt v1.0.0-beta.56's `fn render` (no function) of the file, its reader kpt's get
 * and update read with.
 */
function piecesWritten(text: string): string {
  const whole = new WholeFile(text);
  const cuts = [0, ...[...text.matchAll(/^---$/gm)].map((m) => m.index), text.length];
  const docs = cuts.slice(1).flatMap((end, i) => {
    const at = cuts[i]!;
    const piece = parseYamlFile(text.slice(at, end), "f.yaml").docs;
    for (const doc of piece) applyComments(doc, whole.piece(at, end));
    return piece;
  });
  return formatDocuments(docs);
}

describe("readComments of a piece of a file, as kpt's cut leaves it", () => {
  it("reads no foot after a flow collection on a piece's first line (yaml.v3's line 0): a blank line after its comment lines dropped", () => {
    const text = `${HEADER}---\nmetadata: {name: y}\n# d\n\napiVersion: v1\nkind: B\n`;
    const kpt = `${HEADER}---\nmetadata: {name: y}\n# d\napiVersion: v1\nkind: B\n`;
    expect(piecesWritten(text)).toBe(kpt);
    // the file read whole, as a render reads it, the same
    expect(written(text.slice(HEADER.length))).toBe(kpt);
    // a `---` line kpt's cut leaves first in its piece (the second of two) is the piece's line 0: a foot there
    const left = `${HEADER}---\n---\nmetadata: {name: y}\n# d\n\napiVersion: v1\nkind: B\n`;
    expect(piecesWritten(left)).toBe(`${HEADER}---\nmetadata: {name: y}\n# d\n\napiVersion: v1\nkind: B\n`);
  });
});

describe("readComments, where porchlight deviates from kpt", () => {
  it("keeps the foot yaml.v3 puts a mapping's end's foot in place of, where a text ends with no line break (kpt loses it)", () => {
    // kpt v1.0.0-beta.56 writes `    # END` alone (docs/kpt-compat.md, Deviations)
    expect(table("b:\n  c:\n    d: 1\n  # A\n# END")).toEqual({
      doc: { head: undefined, foot: undefined, endFeet: true },
      d: { foot: "# A\n# END" },
      "block-map": { endFoot: true },
    });
    expect(written("b:\n  c:\n    d: 1\n  # A\n# END")).toBe(
      `${HEADER}b:\n  c:\n    d: 1\n    # A\n    # END\n`,
    );
    // with a final line break, the two are apart, as kpt reads them
    expect(table("b:\n  c:\n    d: 1\n  # A\n# END\n")).toMatchObject({
      d: { foot: "# A" },
      b: { foot: "# END" },
    });
  });
});

describe("readComments", () => {
  it.each(CASES)("%s", (_name, text, want) => {
    expect(table(text)).toEqual(want);
  });

  it("reads every document of a text, each on its own", () => {
    const docs = readComments("a: 1 # one\n---\n# two\nb: 2\n");
    expect(docs).toHaveLength(2);
    expect([...docs[1]!.nodes.values()].find((c) => c.head !== undefined)).toEqual({ head: "# two" });
  });
});
