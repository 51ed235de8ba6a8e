import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Document, isMap, isScalar, type Pair } from "yaml";
import { generatePackage } from "../../bench/render-package.js";
import { detectSeqIndent, formatDocuments } from "../../src/kpt/format.js";
import { normalizeComments } from "../../src/kpt/format-comments.js";
import { type KptFormDoc, readKptForm } from "../../src/kpt/kpt-form.js";
import { getString } from "../../src/kpt/resource.js";
import { parseYamlFile } from "../../src/kpt/yamlfile.js";
import { conformanceDir } from "../conformance/realworld.js";
import { blockYaml, generatedMapping, yamlFiles } from "./generated-yaml.js";

/** What a render writes of a file it read from `text` and changed nothing of. */
function formatted(text: string): string {
  const { docs } = parseYamlFile(text, "f.yaml");
  for (const d of docs) normalizeComments(d, text);
  return formatDocuments(
    docs,
    docs.map((d) => detectSeqIndent(d, text)),
  );
}

/** What readKptForm tells of a document, read from the document. */
function factsOf(doc: Document): KptFormDoc {
  const meta = doc.get("metadata", true);
  const annotations = isMap(meta) ? meta.get("annotations", true) : undefined;
  const form = (node: unknown) =>
    node === undefined ? "absent" : isMap(node) && !node.flow && node.items.length > 0 ? "map" : "other";
  const keys = (node: unknown) =>
    form(node) === "map"
      ? (node as { items: Pair[] }).items.map((p) => String(isScalar(p.key) ? p.key.value : p.key))
      : (form(node) as "absent" | "other");
  return {
    apiVersion: getString(doc, ["apiVersion"]),
    kind: getString(doc, ["kind"]),
    name: isMap(meta) ? getString(doc, ["metadata", "name"]) : undefined,
    metadata: form(meta),
    annotations: isMap(meta) && !meta.flow ? keys(annotations) : "absent",
  };
}

/**
 * True when readKptForm vouches for `text`; then formatting the text as read gives it back, and what
 * it tells of each document is what the document holds (a string it did not tell may be left out).
 */
function vouched(text: string): boolean {
  const form = readKptForm(text);
  if (form === undefined) return false;
  expect(formatted(text), JSON.stringify(text)).toBe(text);
  const { docs } = parseYamlFile(text, "f.yaml");
  expect(form.length).toBe(docs.length);
  docs.forEach((doc, i) => {
    const facts = factsOf(doc);
    const told = form[i]!;
    for (const k of ["apiVersion", "kind", "name"] as const) {
      if (told[k] !== undefined) expect(told[k], text).toBe(facts[k]);
    }
    expect(told.metadata, text).toBe(facts.metadata);
    if (told.metadata === "map") expect(told.annotations, text).toEqual(facts.annotations);
  });
  return true;
}

describe("readKptForm", () => {
  it("vouches for the benchmark's package files, which kpt writes back as they are", () => {
    for (const [path, bytes] of generatePackage(300, "")) {
      if (path.endsWith("Kptfile")) continue;
      expect(vouched(bytes.toString("utf8")), path).toBe(true);
    }
  });

  it("tells a resource's apiVersion, kind, name and annotation keys", () => {
    const text = `# Copyright the authors
#
# Licensed as it is.

apiVersion: apps/v1
kind: 'Deployment'
metadata: # kpt-merge: /web
  name: "web"
  annotations:
    a.io/x: "1"
    b: c
spec:
  name: inner
---
# the second
apiVersion: 1
kind: |
  K
metadata:
  labels:
    a: b
  annotations: {}
`;
    expect(readKptForm(text)).toEqual([
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "web",
        metadata: "map",
        annotations: ["a.io/x", "b"],
      },
      { metadata: "map", annotations: "other" },
    ]);
    expect(vouched(text)).toBe(true);
  });

  it("vouches for nothing kpt's writer would change", () => {
    const texts = [
      "a:\n    b: 1\n",
      "a:  1\n",
      "a: 1 \n",
      "a: 1  # c\n",
      "a: 1 #\n",
      "a: 1\n\nb: 2\n",
      "# c\n\n\na: 1\n",
      "#  \na: 1\n",
      "  # c\na: 1\n",
      "a: 1\n---\n# c\n\nb: 1\n",
      "a: #\n  b: 1\n",
      "a:  # c\n  b: 1\n",
      "a: # c\nb: 1\n",
      "a: 1\n# c\n",
      "a: 1\n# c\nb: 2\n",
      "---\na: 1\n",
      "a: 1\n---\n",
      "a:\n- 1\nb:\n  - 2\n",
      "a:\n   - 1\n",
      "a:\n-  1\n",
      "a: [x,y]\n",
      "a: [x,  y]\n",
      "a: [x] \n",
      "a: { }\n",
      "a: |\n    x\n",
      "a: |\n  x \n",
      "a: |\n  x\n\nb: 1\n",
      "a: |+\n  x\n",
      "a: >\n  x\n",
      "a: ...x\n",
      "a: ---x\n",
      'a: "x\\ty"\n',
      "a: \u0085\n",
      "a: 1\r\n",
      "a:\tb\n",
      "'a': 1\n",
      "a b: 1\n",
      "1: a\n",
      "true: a\n",
      "a: 1\na: 2\n",
      "a: b: c\n",
      "a: &x 1\n",
      "a: !t 1\n",
      "- a\n",
      "a: 1",
      "",
    ];
    for (const t of texts) {
      expect(readKptForm(t), JSON.stringify(t)).toBeUndefined();
    }
  });

  it("vouches for generated texts only where formatting gives them back", () => {
    const scalar = fc.constantFrom(
      "a",
      "b c",
      "1",
      "-2",
      "1.5",
      "true",
      "null",
      "~",
      "yes",
      "'q'",
      "'it''s'",
      '"d d"',
      '"#x"',
      '""',
      "''",
      "x#y",
      "u:v",
      "[a, b]",
      "[a, 'b c', \"d\", 1]",
      "[x?y]",
      "[]",
      "{}",
      "0x1",
      ".5",
      "--",
      "a #c",
      "a # c  ",
      "2e5",
      "2001-12-14",
      "registry.example.com/app:1.0",
      "|\n  lit\n  lines",
      "|-\n  lit\n\n  after a blank",
      "|\n  key:\n  - item",
      "|\n    indented\n  less",
    );
    const key = fc.constantFrom(
      "apiVersion",
      "kind",
      "metadata",
      "name",
      "annotations",
      "a",
      "b",
      "x-y",
      "k.z",
      "a.io/b",
      "n",
    );
    let read = 0;
    let commented = 0;
    fc.assert(
      fc.property(
        fc.array(generatedMapping(scalar, key), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom("", "# h\n", "#\n# h  i\n", "# h\n\n"),
        (docs, wide, keyComments, head) => {
          let text = docs
            .map((d, i) => (i === 0 ? head : head.trim() === "" ? "" : "# d\n") + blockYaml(d, 0, wide, true))
            .join("---\n");
          // A comment after each key over a block (kpt pkg get's `metadata: # kpt-merge: ns/name`).
          if (keyComments) text = text.replace(/^( *(?:- )?[\w./-]+):\n/gm, "$1: # kpt-merge: a/b\n");
          if (vouched(text)) {
            read++;
            if (/#/.test(text)) commented++;
          }
        },
      ),
      // A fixed seed: the same texts every run, so the count of those vouched for cannot drift.
      { numRuns: 800, seed: 7 },
    );
    console.log(`readKptForm: vouched for ${read} generated texts, ${commented} with comments`);
    expect(read).toBeGreaterThan(100);
    expect(commented).toBeGreaterThan(50);
  });

  it("vouches for a text changed by a character only where formatting gives it back", () => {
    const base = [...generatePackage(30, "").entries()]
      .filter(([path]) => !path.endsWith("Kptfile"))
      .map(([, bytes]) => bytes.toString("utf8"));
    // With a licence header and kpt pkg get's comments, and a second document with a head comment.
    base.push(
      `# Copyright\n#\n# Licensed.\n\n${base[0]!.replace(/^( *(?:- )?[\w./-]+):\n/gm, "$1: # kpt-merge: a/b\n").replace("---\n", "---\n# next\n")}`,
    );
    const edits = " \n-:#'\"[]|{}.,ax0".split("");
    let read = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...base),
        fc.nat(),
        fc.constantFrom(...edits),
        fc.constantFrom("insert", "replace", "delete"),
        (text, at, c, how) => {
          const i = at % text.length;
          const edited =
            how === "insert"
              ? text.slice(0, i) + c + text.slice(i)
              : how === "replace"
                ? text.slice(0, i) + c + text.slice(i + 1)
                : text.slice(0, i) + text.slice(i + 1);
          if (vouched(edited)) read++;
        },
      ),
      { numRuns: 1500, seed: 11 },
    );
    expect(read).toBeGreaterThan(300);
  });

  it("vouches for real-world files only where formatting gives them back", () => {
    const dir = conformanceDir();
    if (dir === undefined) return;
    const files = yamlFiles(dir);
    let read = 0;
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(f, "utf8");
        formatted(text);
      } catch {
        continue;
      }
      if (vouched(text)) read++;
    }
    console.log(`readKptForm: vouched for ${read} of ${files.length} corpus files`);
    expect(read).toBeGreaterThan(0);
  });
});
