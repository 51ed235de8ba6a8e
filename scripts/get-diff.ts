/**
 * `npm run differential -- get GIT_DIR_OR_URL [--ref REF] [--yaml-dirs] [--limit N] [--list] [--keep]`:
 * every package directory (a directory holding a Kptfile) of a git repository, and its root — with
 * `--yaml-dirs`, every directory holding a YAML file instead — fetched by
 * `kpt pkg get file://…/repo.git/DIR@REF` and by `porchlight pkg get` of the same, every file of the two
 * copies compared byte for byte; a summary by kind of difference. A URL or a working copy is first
 * cloned bare into the work directory (a bare repository ending in `.git` is used where it lies).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  compareGet,
  type GetKind,
  type GetOutcome,
  packageDirs,
  yamlDirs,
} from "../test/cli/get-differential.js";
import { kptAvailable } from "../test/merge/kpt-oracle.js";

function bareRepository(target: string, work: string): string {
  const local = resolve(target);
  if (target.endsWith(".git") && existsSync(join(local, "HEAD"))) return local;
  const dest = join(work, "source.git");
  const r = spawnSync("git", ["clone", "--quiet", "--bare", target, dest], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot clone ${target}: ${r.stderr.trim()}`);
  return dest;
}

export async function getMain(args: readonly string[]): Promise<number> {
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const target = args[0];
  if (!target) {
    process.stderr.write(
      "usage: npm run differential -- get GIT_DIR_OR_URL [--ref REF] [--yaml-dirs] [--limit N] [--list] [--keep]\n",
    );
    return 2;
  }
  if (!kptAvailable()) {
    process.stderr.write("kpt is not installed: nothing to compare with\n");
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), "porchlight-get-diff-"));
  const git = bareRepository(target, work);
  const ref =
    opt("ref") ??
    spawnSync("git", ["--git-dir", git, "rev-parse", "--abbrev-ref", "HEAD"], {
      encoding: "utf8",
    }).stdout.trim();
  const listed = args.includes("--yaml-dirs") ? yamlDirs(git, ref) : packageDirs(git, ref);
  const dirs = listed.slice(0, Number(opt("limit") ?? Number.POSITIVE_INFINITY));
  const outcomes: GetOutcome[] = [];
  for (const [i, dir] of dirs.entries()) {
    outcomes.push(await compareGet(`file://${git}`, dir, ref, join(work, `g${i}`), `p${i}`));
    if (!args.includes("--keep")) rmSync(join(work, `g${i}`), { recursive: true, force: true });
    process.stderr.write(`\rget: ${i + 1}/${dirs.length}`);
  }
  process.stderr.write("\n");
  const byKind = new Map<GetKind, GetOutcome[]>();
  for (const o of outcomes) byKind.set(o.kind, [...(byKind.get(o.kind) ?? []), o]);
  const files = outcomes.flatMap((o) => o.files ?? []);
  process.stdout.write(`get ${target}@${ref}: ${outcomes.length} packages\n`);
  let failures = 0;
  for (const [kind, list] of [...byKind].sort((a, b) => b[1].length - a[1].length)) {
    process.stdout.write(`  ${kind}: ${list.length}\n`);
    if (kind === "identical" || kind === "both refuse") continue;
    failures += list.length;
    for (const o of list.slice(0, args.includes("--list") ? list.length : 5)) {
      process.stdout.write(`    ${o.dir}${o.detail ? ` — ${o.detail}` : ""}\n`);
      for (const f of (o.files ?? []).slice(0, 3)) process.stdout.write(`      ${f.path}: ${f.detail}\n`);
    }
  }
  if (files.length > 0) process.stdout.write(`  files that differ: ${files.length}\n`);
  if (args.includes("--keep")) process.stdout.write(`work kept in ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  return failures === 0 ? 0 : 1;
}
