import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Document, parseDocument } from "yaml";
import { defaultRegistry } from "../../../src/fn/registry.js";
import type { ResourceList } from "../../../src/fn/types.js";
import { detectSeqIndent, formatDocuments, type SeqIndent } from "../../../src/kpt/yaml/format.js";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";

/**
 * Fixture packages in kpt's fn-render e2e layout (test/fixtures/render/<function>-<case>/: a package
 * whose Kptfile pipeline runs one of the catalog builtins, and `.expected/diff.patch`, the `git diff`
 * the render makes). Here each package is rendered by a minimal in-process pipeline (mutators in order,
 * `configMap`/`configPath`, every YAML file's documents as items) and written with the kpt formatter;
 * the result must equal the input with the expected patch applied. UPDATE_FIXTURES=1 rewrites patches.
 */

const FIXTURES = join(import.meta.dirname, "../../fixtures/render");
const OWN = /^(set-namespace|set-labels|set-annotations|set-image|ensure-name-substring|search-replace)-/;
const temps: string[] = [];

afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === ".expected" || name === ".git") continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full, base));
    else out.push(relative(base, full));
  }
  return out.sort();
}

interface LoadedFile {
  path: string;
  docs: Document[];
  indent: SeqIndent[];
}

function configFor(step: Record<string, unknown>, files: LoadedFile[]): Document | undefined {
  if (step.configMap) {
    return parseDocument(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: ${JSON.stringify(step.configMap)}\n`,
    ) as unknown as Document;
  }
  if (typeof step.configPath === "string") return files.find((f) => f.path === step.configPath)?.docs[0];
  return undefined;
}

/** Renders the package in `dir` in place. */
async function renderInPlace(dir: string): Promise<void> {
  const files: LoadedFile[] = listFiles(dir)
    .filter((p) => p === "Kptfile" || /\.ya?ml$/.test(p))
    .map((path) => {
      const text = readFileSync(join(dir, path), "utf8");
      const { docs } = parseYamlFile(text, path);
      return { path, docs, indent: docs.map((d) => detectSeqIndent(d, text)) };
    });
  const kptfile = files.find((f) => f.path === "Kptfile")?.docs[0]?.toJS() as {
    pipeline?: { mutators?: Record<string, unknown>[] };
  };
  const registry = defaultRegistry();
  for (const step of kptfile.pipeline?.mutators ?? []) {
    const { fn, release } = registry.resolve(String(step.image));
    const functionConfig = configFor(step, files);
    const input: ResourceList = {
      items: files.flatMap((f) => f.docs),
      results: [],
      ...(functionConfig ? { functionConfig } : {}),
    };
    const out = await fn.run(input, { release });
    const errors = out.results.filter((r) => r.severity === "error");
    if (errors.length > 0) throw new Error(`${step.image}: ${errors.map((r) => r.message).join("; ")}`);
  }
  for (const f of files) writeFileSync(join(dir, f.path), formatDocuments(f.docs, f.indent));
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
}

/** A scratch copy of the fixture package (without `.expected`) under version control. */
function scratchCopy(fixture: string): string {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-fixture-"));
  temps.push(dir);
  for (const p of listFiles(fixture)) cpSync(join(fixture, p), join(dir, p), { recursive: true });
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "input");
  return dir;
}

const cases = existsSync(FIXTURES) ? readdirSync(FIXTURES).filter((n) => OWN.test(n)) : [];

describe("catalog builtin fixtures (kpt fn-render layout)", () => {
  it.each(cases)("%s renders to the expected diff", async (name) => {
    const fixture = join(FIXTURES, name);
    const patchFile = join(fixture, ".expected", "diff.patch");
    const rendered = scratchCopy(fixture);
    await renderInPlace(rendered);
    if (process.env.UPDATE_FIXTURES === "1") writeFileSync(patchFile, git(rendered, "diff"));
    const expected = scratchCopy(fixture);
    const patch = readFileSync(patchFile, "utf8");
    if (patch.trim() !== "") {
      writeFileSync(join(expected, ".patch"), patch);
      git(expected, "apply", ".patch");
      rmSync(join(expected, ".patch"));
    }
    for (const p of listFiles(expected)) {
      expect(readFileSync(join(rendered, p), "utf8"), p).toBe(readFileSync(join(expected, p), "utf8"));
    }
  });
});
