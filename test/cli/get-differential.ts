import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { readTree } from "../../src/kpt/tree.js";
import { porchlightWith } from "./pkg-fixture.js";

/**
 * The `pkg get` differential: one package directory of a local git repository fetched by
 * `kpt pkg get file://…/repo.git/DIR@REF` and by `porchlight pkg get` of the same argument, every file
 * of the two copies (Kptfile included) compared byte for byte. Used by `npm run differential -- get`
 * (whole repositories) and by test/cli/pkg-get-differential.test.ts (a sample).
 */

export type GetKind =
  | "identical"
  | "both refuse"
  | "bytes differ"
  | "file missing"
  | "kpt gets, porchlight refuses"
  | "porchlight gets, kpt refuses";

export interface GetOutcome {
  /** The package directory in the repository ("/" for the root). */
  dir: string;
  kind: GetKind;
  /** For "bytes differ" and "file missing": each file that differs, with its first differing line. */
  files?: { path: string; detail: string }[];
  /** For a refusal: the refusing tool's last line. */
  detail?: string;
}

/** The directories of `ref` in the bare or working repository `gitDir` that hold a Kptfile, and the root. */
export function packageDirs(gitDir: string, ref = "HEAD"): string[] {
  const out = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "--name-only", ref], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const dirs = new Set<string>(["/"]);
  for (const p of out.split("\n")) {
    if (p === "Kptfile") continue;
    if (p.endsWith("/Kptfile")) dirs.add(`/${p.slice(0, -"/Kptfile".length)}`);
  }
  return [...dirs].sort();
}

/**
 * The directories of `ref` that hold a `.yaml`/`.yml` file of their own, Kptfile or not (`--yaml-dirs`):
 * `pkg get` of any directory of a repository, as a user fetches a part of one that is no package yet.
 */
export function yamlDirs(gitDir: string, ref = "HEAD"): string[] {
  const out = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "--name-only", ref], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const dirs = new Set<string>();
  for (const p of out.split("\n")) {
    if (!/\.ya?ml$/.test(p)) continue;
    const slash = p.lastIndexOf("/");
    dirs.add(slash < 0 ? "/" : `/${p.slice(0, slash)}`);
  }
  return [...dirs].sort();
}

async function porchlightGet(arg: string, cwd: string, dest: string): Promise<string | undefined> {
  try {
    const r = await porchlightWith(cwd, process.env, "pkg", "get", arg, dest);
    return r.code === 0 ? undefined : r.stderr || `exit ${r.code}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function kptGet(arg: string, cwd: string, dest: string): string | undefined {
  const r = spawnSync("kpt", ["pkg", "get", arg, dest], { cwd, encoding: "utf8", maxBuffer: 1 << 26 });
  return r.status === 0 ? undefined : r.stderr || `exit ${r.status}`;
}

function lastLine(text: string): string {
  return text.trim().split("\n").pop() ?? "";
}

/** Where two texts first differ: the line, kpt's and porchlight's text of it. */
export function firstDifference(a: string, b: string): string {
  const [la, lb] = [a.split("\n"), b.split("\n")];
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i])
      return `line ${i + 1}: kpt ${JSON.stringify(la[i])} porchlight ${JSON.stringify(lb[i])}`;
  }
  return "the same lines";
}

/**
 * `dir` at `ref` of the repository `url` (`file://…/repo.git`) fetched by both tools into
 * `work/kpt/<name>` and `work/porchlight/<name>`, and compared.
 */
export async function compareGet(
  url: string,
  dir: string,
  ref: string,
  work: string,
  name: string,
): Promise<GetOutcome> {
  const arg = `${url}${dir === "/" ? "" : dir}@${ref}`;
  const [k, p] = [join(work, "kpt"), join(work, "porchlight")];
  mkdirSync(k, { recursive: true });
  mkdirSync(p, { recursive: true });
  const kptErr = kptGet(arg, k, name);
  const ourErr = await porchlightGet(arg, p, name);
  if (kptErr !== undefined && ourErr !== undefined) return { dir, kind: "both refuse" };
  if (kptErr !== undefined) return { dir, kind: "porchlight gets, kpt refuses", detail: lastLine(kptErr) };
  if (ourErr !== undefined) return { dir, kind: "kpt gets, porchlight refuses", detail: lastLine(ourErr) };
  const [a, b] = [await readTree(join(k, name)), await readTree(join(p, name))];
  const files: { path: string; detail: string }[] = [];
  let missing = false;
  for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const [x, y] = [a.get(path), b.get(path)];
    if (x && y && x.equals(y)) continue;
    if (!x || !y) missing = true;
    const detail = !x ? "only porchlight wrote it" : !y ? "only kpt wrote it" : "";
    files.push({ path, detail: detail || firstDifference(x!.toString("utf8"), y!.toString("utf8")) });
  }
  if (files.length === 0) return { dir, kind: "identical" };
  return { dir, kind: missing ? "file missing" : "bytes differ", files };
}
