import { describe, expect, it } from "vitest";
import { refNameProblem } from "../../src/lifecycle/index.js";

describe("git's ref name rules", () => {
  it.each(["main", "drafts/app/fix-1", "release/2024.1", "a-b_c.d/e"])("accepts %s", (name) => {
    expect(refNameProblem(name)).toBeUndefined();
  });

  it.each([
    ["", "is empty"],
    ["@", "cannot be `@` alone"],
    ["-x", "cannot start with `-`"],
    ["/x", "cannot start or end with `/`"],
    ["x/", "cannot start or end with `/`"],
    ["a//b", "cannot contain `//`"],
    ["a..b", "cannot contain `..`"],
    ["a@{1}", "cannot contain `@{`"],
    ["a.", "cannot end with `.`"],
    ["a b", "cannot contain a space"],
    ["a\tb", "cannot contain a control character (0x09)"],
    ["a~1", "cannot contain `~`"],
    ["a^", "cannot contain `^`"],
    ["a:b", "cannot contain `:`"],
    ["a?", "cannot contain `?`"],
    ["a*", "cannot contain `*`"],
    ["a[b", "cannot contain `[`"],
    ["a\\b", "cannot contain `\\`"],
    ["a/.b", "has a part starting with `.` (.b)"],
    ["a.lock/b", "has a part ending with `.lock` (a.lock)"],
  ])("refuses %j: %s", (name, reason) => {
    expect(refNameProblem(name)).toBe(reason);
  });
});
