import { describe, expect, it } from "vitest";
import { editDistance, nearestName } from "../../src/config/index.js";

describe("nearestName", () => {
  it.each([
    { word: "aprove", known: ["approve", "reject"], expected: "approve" },
    { word: "mergeMetod", known: ["mergeMethod", "baseBranch"], expected: "mergeMethod" },
    { word: "REJECT", known: ["approve", "reject"], expected: "reject" },
    { word: "deploy", known: ["approve", "reject"], expected: undefined },
    { word: "x", known: [], expected: undefined },
  ])("$word → $expected", ({ word, known, expected }) => {
    expect(nearestName(word, known)).toBe(expected);
  });

  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
    ["approve", "aprove", 1],
  ] as const)("editDistance(%s, %s) = %d", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});
