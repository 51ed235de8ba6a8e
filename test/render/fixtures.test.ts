import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { copyToTemp, normalizeDurations, readFiles, runFn } from "./harness.js";

/**
 * kpt-style render cases (as kpt's e2e/testdata/fn-render): test/fixtures/render/<case>/ is the input
 * package; <case>/.expected/ holds config.yaml (exitCode, stdErr and stdOut snippets, extra args),
 * optionally results.yaml, and the expected package after the render: either diff.patch (kpt's form,
 * a git diff against the input) or the expected files themselves; with neither, the package must stay
 * as it was. Drop a directory in to add a case.
 */
const ROOT = join(import.meta.dirname, "../fixtures/render");
const META = new Set(["config.yaml", "results.yaml", "diff.patch"]);

interface CaseConfig {
  exitCode?: number;
  /** Substrings (durations written as "in 0s") that stderr must contain. */
  stdErr?: string | string[];
  stdOut?: string | string[];
  args?: string[];
  skip?: string;
}

const cases = readdirSync(ROOT)
  .filter((c) => !c.startsWith("_") && existsSync(join(ROOT, c, ".expected")))
  .sort();

describe("porchlight fn render on kpt-style cases", () => {
  it.each(cases)("%s", async (name) => {
    const caseDir = join(ROOT, name);
    const configFile = join(caseDir, ".expected", "config.yaml");
    const config = (
      existsSync(configFile) ? (parse(readFileSync(configFile, "utf8")) ?? {}) : {}
    ) as CaseConfig;
    if (config.skip) return;
    const isInput = (rel: string) => rel !== ".expected" && !rel.startsWith(".expected/");
    const { dir, done } = copyToTemp(caseDir, isInput);
    try {
      const resultsDir = join(dir, "..", "results");
      const run = await runFn(["render", dir, "--results-dir", resultsDir, ...(config.args ?? [])], dir);
      const stderr = normalizeDurations(run.stderr);
      expect(run.code, stderr).toBe(config.exitCode ?? 0);
      for (const s of list(config.stdErr)) expect(stderr).toContain(s);
      for (const s of list(config.stdOut)) expect(run.stdout).toContain(s);

      const expectedDir = join(caseDir, ".expected");
      expect(readFiles(dir)).toEqual(expectedPackage(caseDir, isInput));

      const expectedResults = join(expectedDir, "results.yaml");
      if (existsSync(expectedResults)) {
        expect(readFileSync(join(resultsDir, "results.yaml"), "utf8")).toBe(
          readFileSync(expectedResults, "utf8"),
        );
      }
    } finally {
      done();
    }
  });
});

/** The package a case expects after the render. */
function expectedPackage(caseDir: string, isInput: (rel: string) => boolean): Record<string, string> {
  const expectedDir = join(caseDir, ".expected");
  const patch = join(expectedDir, "diff.patch");
  if (existsSync(patch)) {
    const { dir, done } = copyToTemp(caseDir, isInput);
    try {
      execFileSync("git", ["apply", "--allow-empty", "--whitespace=nowarn", patch], {
        cwd: dir,
        stdio: "pipe",
      });
      return readFiles(dir);
    } finally {
      done();
    }
  }
  const files = readFiles(expectedDir, (rel) => !META.has(rel));
  return Object.keys(files).length > 0 ? files : readFiles(caseDir, isInput);
}

function list(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
