import { describe, expect, it } from "vitest";
import { splitCommandLine } from "../../../src/fn/runtime/shlex.js";

describe("splitCommandLine (kpt's exec: word splitting)", () => {
  it.each([
    ["sed -e 's/foo/bar/'", ["sed", "-e", "s/foo/bar/"]],
    ["  ./fn.sh   a\tb\n", ["./fn.sh", "a", "b"]],
    [`echo "a \\"b\\" c" d\\ e`, ["echo", 'a "b" c', "d e"]],
    ["echo 'it''s' x'y'z", ["echo", "its", "xyz"]],
    ["echo ''", ["echo", ""]],
    ["echo a#b # a comment\nnext", ["echo", "a#b", "next"]],
    ["echo $HOME *", ["echo", "$HOME", "*"]],
  ])("%j", (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each([
    ["sed 's/a", "EOF found when expecting closing quote"],
    ['sed "s/a', "EOF found when expecting closing quote"],
    ["sed a\\", "EOF found after escape character"],
    ['sed "a\\', "EOF found after escape character"],
  ])("refuses %j", (line, message) => {
    expect(() => splitCommandLine(line)).toThrow(message);
  });
});
