import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { blocksOf, docPages, PROJECT } from "../util/doc-blocks.js";

/** A JavaScript string literal: double- or single-quoted, or a template without substitutions. */
const STRING = String.raw`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\`(?:[^\`\\$]|\\.)*\``;

/** The text of such a literal (the escapes tests use: quotes and backslashes). */
function literal(source: string): string {
  return source.slice(1, -1).replace(/\\(.)/g, "$1");
}

/** Every `docBlock("file", "first line")` and `docBlocks(…)` call in the tests' sources: the examples some test runs. */
function claimedBlocks(): { file: string; first: string; by: string }[] {
  const claims: { file: string; first: string; by: string }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(test|slow)\.ts$/.test(entry.name)) {
        const source = readFileSync(path, "utf8");
        if (path === import.meta.filename) continue;
        for (const m of source.matchAll(
          new RegExp(`docBlocks?\\(\\s*(${STRING}),\\s*(${STRING})\\s*,?\\s*\\)`, "g"),
        )) {
          claims.push({
            file: literal(m[1] as string),
            first: literal(m[2] as string),
            by: relative(PROJECT, path),
          });
        }
      }
    }
  };
  walk(join(PROJECT, "test"));
  return claims;
}

/**
 * Docs as tests: every code block of README.md and docs/ — configuration files, commands, workflows,
 * the texts porchlight prints — is taken by a test that runs it or checks it against what porchlight
 * does. A block added to a page without a test fails here, naming the page and line.
 */
describe("the docs' examples", () => {
  const claims = claimedBlocks();

  it("are each run or checked by a test", () => {
    const untested = docPages()
      .flatMap(blocksOf)
      .filter((b) => !claims.some((c) => c.file === b.file && c.first === b.first))
      .map((b) => `${b.file}:${b.line}: ${b.first}`);
    expect(untested).toEqual([]);
  });

  it("are named by the tests as the pages write them (no test names a block that is gone)", () => {
    const stale = claims
      .filter((c) => !blocksOf(c.file).some((b) => b.first === c.first))
      .map((c) => `${c.by}: ${c.file}: ${c.first}`);
    expect(stale).toEqual([]);
  });
});
