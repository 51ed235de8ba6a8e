import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPackage } from "../../src/cli/pkg/get.js";
import { parseRepoSpec } from "../../src/cli/pkg/repospec.js";
import { updatePackage } from "../../src/cli/pkg/update.js";
import { type FileTree, readTree, treeFromText, writeTree } from "../../src/kpt/tree.js";
import { hasKpt } from "../util/kpt.js";

/** Runs the same get → local edit → update with kpt and with porchlight, for differential tests. */

/** True when `kpt` can be run here (test/util/kpt.ts). */
export function kptAvailable(): boolean {
  return hasKpt;
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd,
    stdio: "ignore",
  });
}

export interface Triple {
  original: Record<string, string>;
  updated: Record<string, string>;
  /** Edits the fetched package (paths relative to the package). */
  edit: (fetched: Map<string, string>) => Map<string, string>;
}

export interface Outcome {
  kpt: Record<string, string>;
  porchlight: Record<string, string>;
  /** porchlight's result read and written again by kpt (`kpt fn eval --exec cat`), when asked for. */
  porchlightByKpt?: Record<string, string>;
  /** The trees right after `pkg get`. */
  gotKpt: Record<string, string>;
  gotPorchlight: Record<string, string>;
}

function text(tree: FileTree): Record<string, string> {
  return Object.fromEntries(
    [...tree].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v.toString("utf8")]),
  );
}

async function replaceTree(dir: string, files: Map<string, string>): Promise<void> {
  const before = await readTree(dir);
  await writeTree(dir, before, treeFromText(Object.fromEntries(files)));
}

/** porchlight's result as kpt's reader and writer leave it: the same merge, written by kpt. */
async function rewrittenByKpt(dir: string, root: string): Promise<Record<string, string>> {
  const copy = join(root, "reformat");
  await writeTree(copy, new Map(), await readTree(dir));
  execFileSync("kpt", ["fn", "eval", copy, "--exec", "cat"], { stdio: "pipe" });
  return text(await readTree(copy));
}

/** `pkg update` refused by kpt, by porchlight or by both: each one's message. */
class UpdateRefused extends Error {
  constructor(
    readonly kpt: string | undefined,
    readonly porchlight: string | undefined,
  ) {
    super(
      [kpt && `kpt pkg update: ${kpt}`, porchlight && `porchlight pkg update: ${porchlight}`]
        .filter(Boolean)
        .join("\n"),
    );
    this.name = "UpdateRefused";
  }
}

/** What kpt printed when `run` failed, or undefined. */
function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    const e = err as Error & { stderr?: Buffer };
    return e.stderr?.toString().trim() || e.message;
  }
}

export async function runBoth(t: Triple, reformat = false): Promise<Outcome> {
  const root = mkdtempSync(join(tmpdir(), "porchlight-diff-"));
  try {
    const up = join(root, "up");
    mkdirSync(up);
    git(up, "init", "-q", "-b", "main");
    await writeTree(join(up, "pkg"), new Map(), treeFromText(t.original));
    git(up, "add", "-A");
    git(up, "commit", "-q", "-m", "v1");
    git(up, "tag", "v1");
    const url = `file://${up}.git/pkg@v1`;
    for (const side of ["k", "p"]) mkdirSync(join(root, side));
    execFileSync("kpt", ["pkg", "get", url, "pkg"], { cwd: join(root, "k"), stdio: "pipe" });
    await getPackage(parseRepoSpec(url, root), join(root, "p", "pkg"));
    const gotKpt = text(await readTree(join(root, "k", "pkg")));
    const gotPorchlight = text(await readTree(join(root, "p", "pkg")));

    const edited = t.edit(new Map(Object.entries(gotKpt)));
    await replaceTree(join(root, "k", "pkg"), edited);
    await replaceTree(join(root, "p", "pkg"), edited);

    await writeTree(join(up, "pkg"), treeFromText(t.original), treeFromText(t.updated));
    git(up, "add", "-A");
    git(up, "commit", "-q", "--allow-empty", "-m", "v2");
    git(up, "tag", "v2");
    const kptRefused = refusal(() =>
      execFileSync("kpt", ["pkg", "update", "pkg@v2"], { cwd: join(root, "k"), stdio: "pipe" }),
    );
    const ourRefusal = await updatePackage(join(root, "p", "pkg"), { ref: "v2", allowConflicts: true }).then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    if (kptRefused !== undefined || ourRefusal !== undefined) throw new UpdateRefused(kptRefused, ourRefusal);
    return {
      kpt: text(await readTree(join(root, "k", "pkg"))),
      porchlight: text(await readTree(join(root, "p", "pkg"))),
      porchlightByKpt: reformat ? await rewrittenByKpt(join(root, "p", "pkg"), root) : undefined,
      gotKpt,
      gotPorchlight,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One case of a batch: its files after the update by each tool, paths relative to the case. */
export interface CaseOutcome {
  kpt: Record<string, string>;
  porchlight: Record<string, string>;
  porchlightByKpt: Record<string, string>;
  /** Set when the batch holding this case alone failed (kpt or porchlight refused it). */
  error?: string;
  /** Who refused the update, when one did (an error before the update, e.g. in `pkg get`, has none). */
  refusedBy?: "kpt" | "porchlight" | "both";
}

const caseDir = (i: number) => `c${String(i).padStart(4, "0")}`;

function prefixed(files: Record<string, string>, dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([p, t]) => [`${dir}/${p}`, t]));
}

function slice(files: Record<string, string>, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, t] of Object.entries(files)) if (p.startsWith(`${dir}/`)) out[p.slice(dir.length + 1)] = t;
  return out;
}

/**
 * Many triples through one `kpt pkg get` and one `kpt pkg update` (and the same with porchlight):
 * each triple lives in a directory of its own inside one package, and kpt's resource merge matches
 * resources by file path, so the cases do not meet. A batch that fails is split in halves until the
 * failing case is alone; that case reports the error.
 */
export async function runBatch(triples: readonly Triple[], reformat = true): Promise<CaseOutcome[]> {
  const combined: Triple = {
    original: Object.assign({}, ...triples.map((t, i) => prefixed(t.original, caseDir(i)))),
    updated: Object.assign({}, ...triples.map((t, i) => prefixed(t.updated, caseDir(i)))),
    edit: (fetched) => {
      const out = new Map<string, string>();
      for (const [p, t] of fetched) if (!/^c\d{4}\//.test(p)) out.set(p, t);
      triples.forEach((t, i) => {
        const dir = caseDir(i);
        const mine = new Map(Object.entries(slice(Object.fromEntries(fetched), dir)));
        for (const [p, text] of t.edit(mine)) out.set(`${dir}/${p}`, text);
      });
      return out;
    },
  };
  try {
    const r = await runBoth(combined, reformat);
    return triples.map((_, i) => ({
      kpt: slice(r.kpt, caseDir(i)),
      porchlight: slice(r.porchlight, caseDir(i)),
      porchlightByKpt: slice(r.porchlightByKpt ?? {}, caseDir(i)),
    }));
  } catch (err) {
    if (triples.length === 1) {
      const e = err as Error & { stderr?: Buffer };
      const refusedBy =
        err instanceof UpdateRefused
          ? err.kpt !== undefined && err.porchlight !== undefined
            ? "both"
            : err.kpt !== undefined
              ? "kpt"
              : "porchlight"
          : undefined;
      return [
        {
          kpt: {},
          porchlight: {},
          porchlightByKpt: {},
          error: `${e.message}\n${e.stderr?.toString() ?? ""}`,
          refusedBy,
        },
      ];
    }
    const half = Math.ceil(triples.length / 2);
    return [
      ...(await runBatch(triples.slice(0, half), reformat)),
      ...(await runBatch(triples.slice(half), reformat)),
    ];
  }
}
