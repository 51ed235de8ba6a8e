import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const PROJECT = join(import.meta.dirname, "../..");

/** The engine and the API's folders: no status, reason or exit code is read out of a failure's text there. */
const FOLDERS = ["src/porch", "src/porchapi"];

/**
 * The exceptions, each for its reason: the engine's one translation reads git's stderr (git says that a
 * server refused the token in no other way); the variants' files are moved last, on another schedule.
 */
const ALLOWED = new Set(["src/porch/errors.ts:stderr"]);
const NOT_YET = /^src\/porchapi\/registry\/variant[\w-]*\.ts$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Each regular expression applied to a message or a process's stderr: `/…/.test(x.message)`, `message.match(/…/)`. */
function regexOverMessages(text: string): { line: number; over: string }[] {
  const found: { line: number; over: string }[] = [];
  const patterns = [
    /\/[^\n/]+\/[a-z]*\s*\.(?:test|exec)\(\s*[\w.?]*\b(message|stderr)\b/g,
    /\b(message|stderr)\??\.(?:match|matchAll|search)\(/g,
  ];
  for (const p of patterns)
    for (const m of text.matchAll(p))
      found.push({ line: text.slice(0, m.index).split("\n").length, over: m[1] as string });
  return found;
}

describe("no reason, status or exit code is read out of an error's text", () => {
  const files = FOLDERS.flatMap((f) => sources(join(PROJECT, f))).map((f) => relative(PROJECT, f));

  it("finds the pattern it looks for (the check can fail)", () => {
    expect(regexOverMessages('if (/already exists/.test(e.message)) return "AlreadyExists";')).toEqual([
      { line: 1, over: "message" },
    ]);
    expect(regexOverMessages("const failed = stderr.match(/failed/);")).toEqual([
      { line: 1, over: "stderr" },
    ]);
  });

  it("in src/porch and src/porchapi", () => {
    const offenders = files
      .filter((f) => !NOT_YET.test(f))
      .flatMap((f) =>
        regexOverMessages(readFileSync(join(PROJECT, f), "utf8"))
          .filter((hit) => !ALLOWED.has(`${f}:${hit.over}`))
          .map((hit) => `${f}:${hit.line} (a regular expression over ${hit.over})`),
      );
    expect(offenders).toEqual([]);
  });
});
