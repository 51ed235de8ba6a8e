import { describe, expect, it } from "vitest";
import { treeFromText } from "../../src/kpt/tree.js";
import { conflictMarkers, conflictRegions, mergeText } from "../../src/merge/index.js";

describe("conflict markers", () => {
  it.each([
    { name: "none", text: "a\nb\n", regions: [] },
    {
      name: "a region as the 3-way merge writes it",
      text: "a\n<<<<<<< local\nx\n||||||| original\no\n=======\ny\n>>>>>>> upstream\nb\n",
      regions: [{ startLine: 2, endLine: 8 }],
    },
    {
      name: "a Markdown heading underline is no conflict",
      text: "Title\n=======\n\n>>>>>>> quoted deeply\n",
      regions: [],
    },
    { name: "an opener without a closer", text: "a\n<<<<<<<\nb\n", regions: [{ startLine: 2, endLine: 2 }] },
    {
      name: "two regions, CRLF line ends",
      text: "<<<<<<< HEAD\r\na\r\n=======\r\nb\r\n>>>>>>> x\r\n<<<<<<< HEAD\r\n>>>>>>> y\r\n",
      regions: [
        { startLine: 1, endLine: 5 },
        { startLine: 6, endLine: 7 },
      ],
    },
    { name: "eight angle brackets are no marker", text: "<<<<<<<< a\n", regions: [] },
  ])("$name", ({ text, regions }) => {
    expect(conflictRegions(text)).toEqual(regions);
  });

  it("finds every region the text merge leaves, by file, skipping binary files", () => {
    const merged = mergeText("one\ntwo\n", "one\nTWO upstream\n", "one\ntwo local\n");
    const tree = treeFromText({ "README.md": merged.text, "b.yaml": "a: 1\n", "z.md": "<<<<<<< x\n" });
    tree.set("logo.png", Buffer.from([0, 60, 60, 60, 60, 60, 60, 60, 10]));
    expect(conflictMarkers(tree)).toEqual([
      { file: "README.md", startLine: 2, endLine: 8 },
      { file: "z.md", startLine: 1, endLine: 1 },
    ]);
  });
});
