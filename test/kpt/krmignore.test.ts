import { describe, expect, it } from "vitest";
import { krmIgnoredInTree } from "../../src/kpt/krmignore.js";
import { treeFromText } from "../../src/kpt/tree.js";

describe("krmIgnoredInTree (which files kpt fn eval reads)", () => {
  const tree = treeFromText({
    ".krmignore": ".expected\nskip.yaml\nbuild/\n",
    ".expected/config.yaml": "",
    "skip.yaml": "",
    "keep.yaml": "",
    "build/out.yaml": "",
    "deep/skip.yaml": "",
    "sub/Kptfile": "",
    "sub/skip.yaml": "",
    "other/Kptfile": "",
    "other/.krmignore": "local.yaml\n",
    "other/local.yaml": "",
    "other/skip.yaml": "",
  });
  const ignored = krmIgnoredInTree(tree);

  it.each([
    [".expected/config.yaml", true],
    ["skip.yaml", true],
    ["deep/skip.yaml", true],
    ["build/out.yaml", true],
    ["keep.yaml", false],
    // a subpackage is governed by its own .krmignore alone
    ["sub/skip.yaml", false],
    ["other/local.yaml", true],
    ["other/skip.yaml", false],
  ])("%s → %s", (path, want) => {
    expect(ignored(path)).toBe(want);
  });

  it("hides a whole ignored subpackage", () => {
    const t = treeFromText({ ".krmignore": "vendor\n", "vendor/Kptfile": "", "vendor/a.yaml": "" });
    expect(krmIgnoredInTree(t)("vendor/a.yaml")).toBe(true);
    expect(krmIgnoredInTree(t)("vendor/Kptfile")).toBe(true);
  });

  it("ignores nothing without a .krmignore", () => {
    expect(krmIgnoredInTree(treeFromText({ "a.yaml": "" }))("a.yaml")).toBe(false);
  });
});
