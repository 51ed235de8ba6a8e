import { describe, expect, it } from "vitest";
import { LinesUp, lineStart } from "../../src/kpt/yaml/text-lines.js";
import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A file whose first line is blank, then a comment line (a bare `#` read as " " by the parser), then
 * a key: reading the comment lines above the key upwards found the first line's break again at every
 * step (`lastIndexOf` reads a negative start as 0) and never ended — `\n#\na:` froze every render.
 * Each case is a whole file, rendered as kpt renders it.
 */
const K = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";
/** A case kpt writes alike with no function and through `exec: cat`. */
const same = (name: string, file: string, kpt: string): KptCase => [name, file, kpt, kpt];
const SHAPES: KptCase[] = [
  same("a blank line, then `#` (the five bytes, with a resource)", `\n#\n${K}`, `#\n${K}`),
  same("two blank lines, then `#`", `\n\n#\n${K}`, `#\n${K}`),
  same(
    "a blank line, then `#` over a key further down",
    "apiVersion: v1\nkind: X\n\n#\nmetadata:\n  name: x\n",
    "apiVersion: v1\nkind: X\n#\nmetadata:\n  name: x\n",
  ),
  [
    "a blank line, `#`, then a blank line (through a function, the blank line goes)",
    `\n#\n\n${K}`,
    `#\n\n${K}`,
    `#\n${K}`,
  ],
  same("a blank line, then `# ` (one space)", `\n# \n${K}`, `# \n${K}`),
  same("a line of spaces, then `#`", `\n  \n#\n${K}`, `#\n${K}`),
  same("a blank line, then `#` twice", `\n#\n#\n${K}`, `#\n#\n${K}`),
  same("a blank line, `#`, then `---` and a resource", `\n#\n---\n${K}`, K),
  same(
    "an Apache licence header after a blank first line",
    `\n#\n# Licensed under the Apache License, Version 2.0\n#\n${K}`,
    `#\n# Licensed under the Apache License, Version 2.0\n#\n${K}`,
  ),
  same("the same in a second document", `\n#\n${K}---\n\n#\n${K}`, `#\n${K}---\n#\n${K}`),
];

kptCases("a blank first line, then an empty comment", SHAPES, "");

describe("lineStart and LinesUp on a text that starts with a line break", () => {
  it("the line of offset 0 starts at 0, not after the first break", () => {
    expect(lineStart("\n#\na:", 0)).toBe(0);
    expect(lineStart("\n#\na:", 1)).toBe(1);
    expect(lineStart("\n#\na:", 3)).toBe(3);
    expect(lineStart("x\ny", 2)).toBe(2);
  });

  it("reads every line upwards once, then ends", () => {
    const lines = new LinesUp("\n#\na:", 3);
    const read: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) read.push(lines.up());
    expect(read).toEqual(["", "#", "", undefined, undefined, undefined]);
  });
});
