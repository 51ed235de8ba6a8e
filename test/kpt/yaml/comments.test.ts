import { describe, expect, it } from "vitest";
import { isMap, type Pair, type Scalar, Scalar as ScalarNode, type YAMLMap } from "yaml";
import { normalizeComments } from "../../../src/kpt/yaml/comments/apply.js";
import {
  copyComments,
  footComment,
  headComment,
  lineComment,
  setLineComment,
} from "../../../src/kpt/yaml/comments.js";
import { formatDocument } from "../../../src/kpt/yaml/format.js";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";

function read(text: string) {
  const [doc] = parseYamlFile(text, "f.yaml").docs;
  if (!doc) throw new Error("no document");
  normalizeComments(doc, text);
  return doc;
}

const pair = (map: unknown, key: string): Pair<Scalar, unknown> => {
  if (!isMap(map)) throw new Error("not a mapping");
  const found = (map as YAMLMap<Scalar, unknown>).items.find((p) => p.key.value === key);
  if (!found) throw new Error(`no ${key}`);
  return found;
};

describe("the comment model (src/kpt/yaml/comments.ts)", () => {
  it.each([
    ["a lone #", "a: 1 #\n", "#"],
    ["# and a space", "a: 1 # \n", "# "],
    ["text after #", "a: 1 #x\n", "#x"],
    ["text after # and a space", "a: 1 # x\n", "# x"],
  ])("gives a line comment as its raw text: %s", (_, text, raw) => {
    const doc = read(text);
    expect(lineComment(pair(doc.contents, "a").value as Scalar)).toBe(raw);
  });

  it("gives head and foot comments as raw lines, a blank line as an empty one", () => {
    const doc = read("a:\n  # one\n\n  #two\n  b: 1\n  # foot\nc: 2\n");
    const a = pair(doc.contents, "a").value as YAMLMap;
    // (a block mapping's first key's head is held on the mapping, as the `yaml` parser puts it)
    expect(headComment(a)).toBe("# one\n\n#two");
    expect(footComment(a as YAMLMap)).toBe("# foot");
  });

  it("writes a line comment set as raw text where kpt writes it", () => {
    const doc = read("a: 1\n");
    setLineComment(pair(doc.contents, "a").value as Scalar, "# kpt-merge: ns/a");
    expect(formatDocument(doc)).toBe("a: 1 # kpt-merge: ns/a\n");
  });

  it("copies a node's comments: a new key in place of the old one is written as the old one was", () => {
    // the foot of `x`'s last value, read above `y`, then `y`'s own head
    const text = "m:\n  x:\n    v: 1\n  # foot of x\n\n  # head of y\n  y: 2\n";
    const doc = read(text);
    const m = pair(doc.contents, "m").value as YAMLMap<Scalar, unknown>;
    const y = pair(m, "y");
    const copy = new ScalarNode("y");
    copyComments(y.key, copy);
    y.key = copy;
    const fresh = read(text);
    expect(formatDocument(doc)).toBe(formatDocument(fresh));
  });
});
