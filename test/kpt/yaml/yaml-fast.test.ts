import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Document,
  isCollection,
  isDocument,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Pair,
  parseAllDocuments,
  Scalar,
  YAMLMap,
  YAMLSeq,
} from "yaml";
import { generatePackage } from "../../../bench/render-package.js";
import { normalizeComments } from "../../../src/kpt/yaml/comments/apply.js";
import { isCommonYaml, parseCommonYaml } from "../../../src/kpt/yaml/yaml-fast.js";
import { conformanceDir } from "../../conformance/realworld.js";
import { blockYaml, generatedMapping, yamlFiles } from "./generated-yaml.js";

const OPTIONS = { keepSourceTokens: false, prettyErrors: true, uniqueKeys: true } as const;

/**
 * The fast reader's documents for `text` beside `yaml`'s, both as plain data: every own property of
 * every node (class, value, style, source, range, comment, flow, tag, format), of the documents
 * (directives, options, errors) and the line counter's line starts. Undefined when the fast reader
 * gave the file back.
 */
function bothReadings(text: string): { fast: unknown; yaml: unknown } | undefined {
  const fastLines = new LineCounter();
  const fast = parseCommonYaml(text, { ...OPTIONS, lineCounter: fastLines });
  if (fast === undefined) return undefined;
  const yamlLines = new LineCounter();
  const all = parseAllDocuments(text, { ...OPTIONS, lineCounter: yamlLines });
  const docs = Array.isArray(all) ? all : [all];
  const read = {
    fast: { docs: fast.map(plain), lines: fastLines.lineStarts },
    yaml: { docs: docs.map(plain), lines: yamlLines.lineStarts },
  };
  // kpt's comment placement skips the documents the reader read without comment lines (nothing in them
  // moves): check that it does, and that it places the comment lines of the others.
  expect(fast.every(isCommonYaml)).toBe(!/^#/m.test(text));
  for (const d of [...fast, ...docs]) normalizeComments(d, text);
  return {
    fast: { ...read.fast, normalized: fast.map(plain) },
    yaml: { ...read.yaml, normalized: docs.map(plain) },
  };
}

/**
 * A node tree as plain data, its classes named, with the kind `yaml` tells it by (under a symbol, not
 * an own key of the nodes the fast reader makes) and its range; a document's schema by its name only.
 */
function plain(v: unknown): unknown {
  if (v === null || typeof v !== "object") return typeof v === "number" && Number.isNaN(v) ? "NaN" : v;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof LineCounter) return { lineCounter: true };
  const out: Record<string, unknown> = { class: v.constructor.name, kind: kindOf(v) };
  for (const key of Object.keys(v).sort()) {
    const value = (v as Record<string, unknown>)[key];
    out[key] = key === "schema" ? String((value as { name?: string }).name) : plain(value);
  }
  // A node's range, an own property once read (the fast reader's nodes make it when first read).
  if ("range" in v) out.range = plain((v as { range: unknown }).range);
  return out;
}

function kindOf(v: object): string {
  const kinds: Record<string, (v: unknown) => boolean> = {
    isDocument,
    isMap,
    isPair,
    isScalar,
    isSeq,
    isCollection,
    isNode,
  };
  const kind = Object.entries(kinds)
    .filter(([, is]) => is(v))
    .map(([name]) => name)
    .join(" ");
  const classes = `${v instanceof Scalar} ${v instanceof Pair} ${v instanceof YAMLMap} ${v instanceof YAMLSeq}`;
  // A collection's schema is not an own enumerable property: its name, and what set and setIn read.
  const schema = isCollection(v)
    ? ` ${v.schema?.name} ${v.schema?.sortMapEntries} ${v.schema?.tags.length}`
    : "";
  return `${kind} ${classes}${schema}`;
}

function expectSame(text: string): boolean {
  const r = bothReadings(text);
  if (r === undefined) return false;
  expect(r.fast, text).toEqual(r.yaml);
  return true;
}

describe("parseCommonYaml", () => {
  it("reads the benchmark's package files as yaml does", () => {
    const tree = generatePackage(
      300,
      "pipeline:\n  mutators:\n  - image: set-labels:v0.1\n    configMap:\n      a: b\n",
    );
    for (const [path, bytes] of tree) expect(expectSame(bytes.toString("utf8")), path).toBe(true);
  });

  it("reads scalars of every kind the schema resolves as yaml does", () => {
    const values = [
      "1",
      "-1",
      "+1",
      "0o17",
      "0x1F",
      "1.5",
      "1.50",
      "1e3",
      ".inf",
      "-.Inf",
      ".nan",
      "true",
      "False",
      "null",
      "Null",
      "~",
      "0",
      "007",
      "12345678901234567890",
      "1.0.3",
      "v1",
      "a:b",
      "a#b",
      "-a",
      "x y",
      "'it''s'",
      '"q"',
      "''",
      '""',
      "[]",
      "{}",
      "[a, 'b', \"c\", 1, true]",
      "[ a]",
      "[a ,b]",
      "t",
      "no",
      "yes",
      "y",
      "NULL",
      "TRUE",
      "nan",
      "inf",
      "1_000",
      "0b11",
      "1:30",
      "2001-12-14",
      "=",
      "- x",
    ];
    let read = 0;
    for (const v of values) {
      for (const text of [`k: ${v}\n`, `- ${v}\n`, `${v}: v\n`, `k: ${v} # c\n`, `k:\n  n: ${v}  \n`]) {
        if (expectSame(text)) read++;
      }
    }
    expect(read).toBeGreaterThan(150);
  });

  it("reads block literals, sequences and documents as yaml does", () => {
    const texts = [
      "a: |\n  x\n  y\nb: 1\n",
      "a: |-\n  x\n\n    y\nb: 1\n",
      "a:\n- |\n  x\n- |-\n   y\n",
      "a:\n- b: |\n    x\n  c: 2\n- d\n",
      "a:\n  - 1\n  - 2\nb:\n  c:\n    d: e\n",
      "---\na: 1\n---\nb: 2\n",
      "a: 1\n---\nb: 2\n",
      "a: 1 #\nb: 2 #  two  \n",
      "k:\n- a: 1\n  b: [x, y]\n- c: {}\n",
      "a:   spaced\n",
      "k: |\n text\n",
      "a: 1\n\nb: 2\n",
      "a: |\n  x\n\nb: 1\n",
      "a: |-\n  x\n\n\nb: 1\n",
      "a:\n- b: 1\n\n- c: 2\n\n  d: 3\n\ne: 1\n",
      "f:\n  g:\n    h: 1\n\n  i: 2\n---\nj: 1\n\nk: 2\n",
      "# a\n# b\nk: v\n",
      "# Copyright\n\nk: v\n",
      "# a\n\n\nk: v\n",
      "#c\nk: v\n",
      "#\n# a  \n#\nk: v\n",
      "# a\n#\n# b\n\nk: v\n",
      "---\n# a\n#\nk: v\n",
      "---\n# c\n# d\nk: v\n",
      "# a\nk: 1\n---\n# c\nk: 2\n---\nk: 3\n",
      "# a\n\nk: 1 # x\nm:\n  n: 2\n",
    ];
    for (const t of texts) expect(expectSame(t), t).toBe(true);
  });

  it("gives back what it does not read, for yaml to read", () => {
    const texts = [
      "a: 1\n  \nb: 2\n",
      "a: 1\n\n",
      "a: 1\n\n---\nb: 1\n",
      "a:\n\n  b: 1\n",
      "a: &x 1\nb: *x\n",
      "a: !t 1\n",
      "a: >\n  x\n",
      "a: 1",
      "a:\tb\n",
      "a: 1\r\n",
      '"a": 1\n',
      "a:\n",
      "a: 1\na: 2\n",
      "a: 1\n...\n",
      "---\n---\na: 1\n",
      "a: b: c\n",
      "a: x\n  y\n",
      "- - a\n",
      "a: [\n  b]\n",
      "a: {b: c}\n",
      "a: |2\n   x\n",
      "a: |\n\n  x\n",
      "- a\n",
      'a: "x\\ny"\n',
      "%YAML 1.2\n---\na: 1\n",
      "a: 1 # c\n# d\n",
      "# a\n\n# b\nk: v\n",
      "# c\n---\nk: v\n",
      "---\n# c\n\nk: v\n",
      "  # a\nk: v\n",
      "# a\n",
      "",
    ];
    for (const t of texts) expect(parseCommonYaml(t, OPTIONS), JSON.stringify(t)).toBeUndefined();
  });

  it("gives back a mapping with a key twice, however many keys it has", () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: ${i}\n`).join("");
    for (const n of [2, 15, 16, 17, 40]) {
      expect(expectSame(`${keys(n)}z: 1\n`), `${n} keys`).toBe(true);
      for (const again of [0, n - 1]) {
        const text = `${keys(n)}k${again}: x\n`;
        expect(parseCommonYaml(text, OPTIONS), `${n} keys, k${again} again`).toBeUndefined();
        expect(parseCommonYaml(`m:\n${text.replace(/^/gm, "  ")}`, OPTIONS)).toBeUndefined();
      }
    }
  });

  it("makes nodes that yaml edits, copies and writes as it does its own", () => {
    const edit = (docs: Document[]) =>
      docs.map((doc) => {
        doc.setIn(["metadata", "labels", "team"], "platform");
        doc.setIn(["spec", "added", "deep"], [1, { a: "b" }]);
        (doc.contents as YAMLMap).set("b-key", doc.createNode({ list: ["x"] }));
        const copy = doc.clone();
        (copy.get("metadata") as YAMLMap).set("copied", true);
        return [plain(doc), plain(copy), String(doc), String(copy)];
      });
    const tree = generatePackage(12, "");
    for (const options of [OPTIONS, { ...OPTIONS, sortMapEntries: true }])
      for (const [path, bytes] of tree) {
        const text = bytes.toString("utf8");
        const fast = parseCommonYaml(text, options);
        expect(fast, path).toBeDefined();
        const all = parseAllDocuments(text, options);
        const docs = Array.isArray(all) ? all : [all];
        expect(plain(edit(fast!)), path).toEqual(plain(edit(docs)));
      }
  });

  it("reads generated mappings and sequences exactly as yaml does, or gives them back", () => {
    const scalar = fc.constantFrom(
      "a",
      "b c",
      "1",
      "-2",
      "1.5",
      "true",
      "null",
      "~",
      "'q'",
      '"d d"',
      "x#y",
      "u:v",
      "[a, b]",
      "[]",
      "{}",
      "'a''b'",
      "0x1",
      ".5",
      "--",
      "a #c",
      "2e5",
      "|\n  lit\n  lines",
    );
    const key = fc.constantFrom("a", "b", "c d", "1", "true", "x-y", "k.z", "-k", "~");
    const root = generatedMapping(scalar, key);
    let read = 0;
    fc.assert(
      fc.property(
        fc.array(root, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(undefined, /\n(?=[^\s-])/g, /\n(?= *- )/g, /\n(?= {2}\S)/g),
        (docs, wide, lead, blankBefore) => {
          // Empty lines before some of the entries (none at the end of a document, none before `---`).
          const body = docs.map((d) => blockYaml(d, 0, wide, true).replace(blankBefore ?? /^$/, "\n\n"));
          const text = (lead ? "---\n" : "") + body.join("---\n");
          if (expectSame(text)) read++;
        },
      ),
      // A fixed seed: the same 600 texts every run, so the count of those read cannot drift.
      { numRuns: 600, seed: 13 },
    );
    expect(read).toBeGreaterThan(30);
  });

  it("reads the real-world corpus's files as yaml does, or gives them back", () => {
    const dir = conformanceDir();
    if (dir === undefined) return;
    const files = yamlFiles(dir);
    let read = 0;
    for (const f of files) {
      if (expectSame(readFileSync(f, "utf8"))) read++;
    }
    console.log(`parseCommonYaml: read ${read} of ${files.length} corpus files, gave back the rest`);
    expect(read).toBeGreaterThan(0);
  });
});
