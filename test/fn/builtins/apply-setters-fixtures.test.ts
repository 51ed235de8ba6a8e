import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { defaultRegistry } from "../../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../../src/fn/runtime/types.js";
import { type FileTree, readTree, writeTree } from "../../../src/kpt/tree.js";
import { render } from "../../../src/render/render.js";
import { formatResultsFile } from "../../../src/render/results.js";

/**
 * Render fixtures for apply-setters, apply-replacements and kubeconform, in kpt's fn-render e2e layout:
 * test/fixtures/render/<function>-<case>/ is a package; `.expected/diff.patch` is the `git diff` the
 * render makes, `.expected/results.yaml` (when present) the results file kpt writes, and
 * `.expected/config.yaml` may say `exitCode: 1` for a render that must fail. The package is rendered by
 * porchlight's kpt fn render pipeline. UPDATE_FIXTURES=1 rewrites the expected files.
 */

const FIXTURES = join(import.meta.dirname, "../../fixtures/render");
const OWN = /^(apply-setters|apply-replacements|kubeconform)-/;
const UPDATE = process.env.UPDATE_FIXTURES === "1";
const temps: string[] = [];

afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t" };
  return execFileSync("git", args, { cwd, encoding: "utf8", env: { ...env, GIT_COMMITTER_EMAIL: "t@t" } });
}

/** The package's files, without `.expected/`. */
async function packageTree(dir: string): Promise<FileTree> {
  const tree = await readTree(dir);
  for (const path of [...tree.keys()]) if (path.startsWith(".expected/")) tree.delete(path);
  return tree;
}

/** A scratch git repository holding the tree, committed. */
async function committed(tree: FileTree): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-fixture-"));
  temps.push(dir);
  await writeTree(dir, new Map(), tree);
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "input");
  return dir;
}

function expectedFile(fixture: string, name: string): string | undefined {
  const path = join(fixture, ".expected", name);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

const cases = existsSync(FIXTURES) ? readdirSync(FIXTURES).filter((n) => OWN.test(n)) : [];

describe("render fixtures: apply-setters, apply-replacements, kubeconform", () => {
  it.each(cases)("%s", async (name) => {
    const fixture = join(FIXTURES, name);
    const input = await packageTree(fixture);
    const outcome = await render(input, "", {
      registry: defaultRegistry(),
      run: DEFAULT_RUN_OPTIONS,
      rootDir: `/fixtures/${name}`,
    });
    const config = (parse(expectedFile(fixture, "config.yaml") ?? "{}") ?? {}) as { exitCode?: number };
    expect(outcome.ok, outcome.error?.message).toBe((config.exitCode ?? 0) === 0);

    const rendered = await committed(input);
    await writeTree(rendered, input, outcome.tree);
    const diff = git(rendered, "diff");
    const results = formatResultsFile(outcome.records);
    if (UPDATE) {
      writeFileSync(join(fixture, ".expected", "diff.patch"), diff);
      if (expectedFile(fixture, "results.yaml") !== undefined) {
        writeFileSync(join(fixture, ".expected", "results.yaml"), results);
      }
    }
    const expected = await committed(input);
    const patch = expectedFile(fixture, "diff.patch") ?? "";
    if (patch.trim() !== "") {
      writeFileSync(join(expected, ".patch"), patch);
      git(expected, "apply", ".patch");
      rmSync(join(expected, ".patch"));
    }
    const want = await readTree(expected);
    const got = await readTree(rendered);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [path, bytes] of want)
      expect(got.get(path)?.toString("utf8"), path).toBe(bytes.toString("utf8"));
    const wantResults = expectedFile(fixture, "results.yaml");
    if (wantResults !== undefined) expect(results).toBe(wantResults);
  });
});
