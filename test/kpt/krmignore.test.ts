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

/**
 * What kpt v1.0.0-beta.56's render leaves alone for each `.krmignore`, read off kpt itself (a package
 * holding every path below; the files it did not reformat): go-gitignore's rules, not git's — only a
 * leading `/` anchors a pattern, and a `!` pattern wins wherever it stands.
 */
describe("krmIgnoreMatcher reads patterns as kpt does", () => {
  const paths = [
    "cm.yaml",
    "tests/cm.yaml",
    "sub/tests/cm.yaml",
    "a/b/tests/cm.yaml",
    "tests/x/cm.yaml",
    "sub/tests/x/cm.yaml",
    "a/b/cm.yaml",
    "x/a/b/cm.yaml",
    "keep.yaml",
    "sub/keep.yaml",
  ];
  const tests = [
    "tests/cm.yaml",
    "sub/tests/cm.yaml",
    "a/b/tests/cm.yaml",
    "tests/x/cm.yaml",
    "sub/tests/x/cm.yaml",
  ];
  it.each([
    ["tests/*\n", tests],
    ["tests/\n", tests],
    ["tests\n", tests],
    ["/tests\n", ["tests/cm.yaml", "tests/x/cm.yaml"]],
    ["a/b\n", ["a/b/tests/cm.yaml", "a/b/cm.yaml", "x/a/b/cm.yaml"]],
    ["/a/b\n", ["a/b/tests/cm.yaml", "a/b/cm.yaml"]],
    ["tests/x\n", ["tests/x/cm.yaml", "sub/tests/x/cm.yaml"]],
    ["*.yaml\n!keep.yaml\n", paths.filter((p) => !p.endsWith("keep.yaml"))],
    ["!keep.yaml\n*.yaml\n", paths.filter((p) => !p.endsWith("keep.yaml"))],
  ])("%j ignores what kpt ignores", (krmignore, want) => {
    const ignored = krmIgnoredInTree(treeFromText({ ".krmignore": krmignore, Kptfile: "" }));
    expect(paths.filter((p) => ignored(p)).sort()).toEqual([...want].sort());
  });
});
