import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { hasKpt } from "../util/kpt.js";

/**
 * The real-world kpt packages in shared/conformance/realworld (Nephio's, free5gc's, kpt's examples),
 * prepared so that two copies can be rendered, one by kpt and one by porchlight, and compared byte for
 * byte. The corpus is read where it lies; nothing of it is copied into the project.
 */

/**
 * shared/conformance: $PORCHLIGHT_CONFORMANCE_DIR, else the first `shared/conformance` beside the
 * repository or beside one of the folders above it (a worktree sits deeper than the main checkout).
 */
export function conformanceDir(): string | undefined {
  const env = process.env.PORCHLIGHT_CONFORMANCE_DIR;
  if (env) return existsSync(env) ? env : undefined;
  let dir = join(import.meta.dirname, "../..");
  for (;;) {
    const candidate = join(dir, "..", "shared", "conformance");
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export const REALWORLD_DIR: string | undefined = (() => {
  const c = conformanceDir();
  return c && existsSync(join(c, "realworld")) ? join(c, "realworld") : undefined;
})();

/**
 * What the Kptfiles' pipelines become before rendering: "none" removes them (only reading, formatting and
 * writing happen); "exec-cat" runs an executable that echoes the ResourceList; "exec-sed" one that edits
 * it with sed (every image gets a registry prefix).
 */
export type PipelineMode = "none" | "exec-cat" | "exec-sed";

export const PIPELINE_MODES: readonly PipelineMode[] = ["none", "exec-cat", "exec-sed"];

/** The shell scripts the exec modes run (written into `dir`); their absolute paths by mode. */
export function writeExecFunctions(dir: string): Record<Exclude<PipelineMode, "none">, string> {
  const cat = join(dir, "cat.sh");
  writeFileSync(cat, "#!/bin/sh\nexec cat\n", { mode: 0o755 });
  const sed = join(dir, "sed.sh");
  writeFileSync(
    sed,
    "#!/bin/sh\nexec sed -e 's|^\\( *-\\{0,1\\} *\\)image: |\\1image: registry.example.com/|'\n",
    {
      mode: 0o755,
    },
  );
  return { "exec-cat": cat, "exec-sed": sed };
}

/** The corpus's packages: directories holding a Kptfile with no Kptfile above them, sorted. */
export function listPackages(root = REALWORLD_DIR): string[] {
  if (root === undefined || !existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string, inPackage: boolean): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    const isPackage = entries.some((e) => e.isFile() && e.name === "Kptfile");
    if (isPackage && !inPackage) out.push(relative(root, dir));
    for (const e of entries) {
      if (e.isDirectory() && e.name !== ".git") walk(join(dir, e.name), inPackage || isPackage);
    }
  };
  walk(root, false);
  return out.sort();
}

/**
 * Removes a Kptfile's top-level `pipeline:` block (up to the next top-level key) and, when given,
 * appends `pipeline` (YAML text of a `pipeline:` block) instead.
 */
export function replacePipeline(kptfile: string, pipeline?: string): string {
  const lines = kptfile.split("\n");
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (/^pipeline:/.test(line)) {
      skipping = true;
      continue;
    }
    if (skipping && /^[^\s#]/.test(line)) skipping = false;
    if (!skipping) out.push(line);
  }
  let text = out.join("\n");
  if (pipeline !== undefined) {
    if (!text.endsWith("\n")) text += "\n";
    text += pipeline;
  }
  return text;
}

/** The `pipeline:` block that runs `exec` as the only mutator. */
function execPipeline(exec: string): string {
  return `pipeline:\n  mutators:\n    - exec: ${exec}\n`;
}

/** Copies the package `src` to `dest` and rewrites every Kptfile in it for `mode`. */
export function preparePackage(src: string, dest: string, mode: PipelineMode, exec?: string): void {
  cpSync(src, dest, { recursive: true });
  for (const file of listFiles(dest)) {
    if (!file.endsWith("Kptfile")) continue;
    const path = join(dest, file);
    const before = readFileSync(path, "utf8");
    const after = replacePipeline(before, mode === "none" ? undefined : execPipeline(exec!));
    writeFileSync(path, after);
  }
}

/** Every regular file below `dir`, relative, sorted (`.git` skipped). */
function listFiles(dir: string): string[] {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && !relative(dir, join(e.parentPath, e.name)).split("/").includes(".git"))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The files below `dir` as text, by relative path. */
export function readTextTree(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

/** Paths whose content differs (or that only one side has), sorted. */
export function differingFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] {
  const paths = new Set([...a.keys(), ...b.keys()]);
  return [...paths].filter((p) => a.get(p) !== b.get(p)).sort();
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kpt fn render` in `dir` (exec functions allowed). */
export function kptRender(dir: string): RunResult {
  const r = spawnSync("kpt", ["fn", "render", "--allow-exec", "."], { cwd: dir, encoding: "utf8" });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** True when `kpt` can be run here (test/util/kpt.ts). */
export function kptAvailable(): boolean {
  return hasKpt;
}

/** A unified diff of two directories (the `diff` program), for people to read. */
export function unifiedDiff(a: string, b: string): string {
  const r = spawnSync("diff", ["-ruN", a, b], { encoding: "utf8" });
  return r.stdout ?? "";
}
