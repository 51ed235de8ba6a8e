import { describe, expect, it } from "vitest";
import type { Node, YAMLMap } from "yaml";
import { YamlError } from "../../src/kpt/errors.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { headComment } from "../../src/kpt/yaml/comments.js";
import { mergePackage } from "../../src/merge/index.js";
import { parseYamlDocs, splitDocuments } from "../../src/merge/yamldoc.js";

const KF = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";

describe("cutting files into documents", () => {
  it("cuts at --- lines, keeping each document's own separator and its line", () => {
    const chunks = splitDocuments("a: 1\n---\nb: 2\n--- # two\nc: 3\n");
    expect(chunks?.map(({ whole, ...c }) => ({ ...c, at: whole?.at }))).toEqual([
      { text: "a: 1\n", line: 0, at: 0 },
      { text: "---\nb: 2\n", line: 1, at: 5 },
      { text: "--- # two\nc: 3\n", line: 3, at: 14 },
    ]);
  });

  it("does not cut at --- inside a line or at ---x", () => {
    expect(splitDocuments("a: ---\n---x: 1\n")).toMatchObject([{ text: "a: ---\n---x: 1\n", line: 0 }]);
  });

  it("refuses files with directives or document-end markers", () => {
    expect(splitDocuments("%YAML 1.2\n---\na: 1\n")).toBeUndefined();
    expect(splitDocuments("a: 1\n...\n---\nb: 2\n")).toBeUndefined();
  });

  it("drops comments before the first separator, as kpt does", () => {
    const docs = parseYamlDocs("# head\n---\na: 1\n", "f.yaml");
    expect(docs).toHaveLength(1);
    expect(docs[0]!.doc.commentBefore).toBeFalsy();
  });

  it("keeps the comment on a --- line kpt's cut leaves first in a piece, as kpt pkg get does", () => {
    // kyaml cuts at "\n---…\n": of two --- lines in a row, the second starts a piece, comment and all
    const docs = parseYamlDocs("a: 1\n--- # d\n--- # e\nb: 2\n--- # f\nc: 3\n", "f.yaml");
    const firstKey = (i: number) => (docs[i]!.doc.contents as YAMLMap).items[0]!.key as Node;
    expect(docs.map((_, i) => headComment(firstKey(i)))).toEqual([undefined, "# e", undefined]);
  });

  it("reports a syntax error at its line in the file, not in the document", () => {
    const text = "a: 1\n---\nb: 2\n---\nc: [\n";
    expect(() => parseYamlDocs(text, "f.yaml")).toThrow(YamlError);
    try {
      parseYamlDocs(text, "f.yaml");
    } catch (e) {
      expect((e as YamlError).position.file).toBe("f.yaml");
      expect((e as YamlError).position.line).toBeGreaterThanOrEqual(5);
    }
  });
});

describe("documents equal on all sides", () => {
  it("are kept byte for byte when the merge would not change them", () => {
    const doc =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\ndata:\n  k: v\n";
    const t = treeFromText({
      Kptfile: KF,
      "a.yaml": `${doc}---\n${doc.replaceAll("/a", "/b").replace("name: a", "name: b").replace("|a'", "|b'")}`,
    });
    expect(treeToText(mergePackage({ original: t, updated: t, local: t }).tree)["a.yaml"]).toBe(
      t.get("a.yaml")!.toString(),
    );
  });

  it("are merged all the same when the merge changes them (nulls cleared, YAML 1.1 booleans quoted)", () => {
    const doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: null\n  y:\n  z: on\n";
    const t = treeFromText({ Kptfile: KF, "a.yaml": doc });
    expect(treeToText(mergePackage({ original: t, updated: t, local: t }).tree)["a.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\ndata:\n  z: \"on\"\n",
    );
  });
});
