import { type FileTree, readTree, type TreeChange, writeTree } from "../kpt/tree.js";
import { openUpstream } from "./get.js";
import type { FetchedRepo } from "./git.js";
import { isDirty } from "./git.js";
import { isStrategy, mergePackage } from "./index.js";
import { formatKptfile, type PlainKptfile } from "./kptfile.js";
import { KPTFILE } from "./layout.js";
import { readKptfile } from "./package-merge.js";
import { MergeError, type MergeResult, type UpdateStrategy } from "./types.js";

/**
 * `pkg update` on disk: reads the local package, fetches the upstream it names (the original at
 * upstreamLock's commit, the new revision at the given or recorded ref), merges in memory, and
 * writes only when the merge is whole (no conflicts, unless allowed). On any error the local
 * package is untouched.
 */
export interface UpdateOptions {
  ref?: string;
  strategy?: UpdateStrategy;
  /** Write files with conflict markers instead of refusing. */
  allowConflicts?: boolean;
  /** Skip the uncommitted-changes check. */
  allowDirty?: boolean;
}

export interface UpdateOutcome extends MergeResult {
  commit: string;
  ref: string;
  written?: TreeChange;
}

export interface UpstreamInfo {
  kf: PlainKptfile;
  repo: string;
  directory: string;
  ref: string;
  lockCommit?: string;
}

export function upstreamOf(local: FileTree, dir: string): UpstreamInfo {
  if (!local.has(KPTFILE)) {
    throw new MergeError(`${dir}: no Kptfile; "pkg update" works on a package fetched with "pkg get"`);
  }
  const kf = readKptfile(local, `${dir}/${KPTFILE}`);
  const git = kf.upstream?.git;
  if (!git?.repo) {
    throw new MergeError(
      `${dir}/${KPTFILE}: the package has no upstream (upstream.git.repo); nothing to update from`,
    );
  }
  return {
    kf,
    repo: String(git.repo),
    directory: String(git.directory ?? "/"),
    ref: String(git.ref ?? ""),
    lockCommit: kf.upstreamLock?.git?.commit ? String(kf.upstreamLock.git.commit) : undefined,
  };
}

/** The three trees of an update: original (at the lock), updated (at `ref`), with the resolved commit. */
export async function upstreamTrees(
  repo: FetchedRepo,
  up: UpstreamInfo,
  ref: string,
): Promise<{ original: FileTree; updated: FileTree; commit: string }> {
  const commit = await repo.resolve(ref, up.directory);
  const updated = await repo.readDir(commit, up.directory);
  const original = up.lockCommit
    ? await repo.readDir(up.lockCommit, up.directory)
    : new Map<string, Buffer>();
  return { original, updated, commit };
}

export async function updatePackage(dir: string, opts: UpdateOptions = {}): Promise<UpdateOutcome> {
  const local = await readTree(dir);
  const up = upstreamOf(local, dir);
  if (!opts.allowDirty && (await isDirty(dir))) {
    throw new MergeError(`package "${dir}" contains uncommitted changes; commit or stash them first`);
  }
  const ref = opts.ref ?? up.ref;
  const recorded = String(up.kf.upstream?.updateStrategy ?? "resource-merge");
  const strategy = opts.strategy ?? (isStrategy(recorded) ? recorded : "resource-merge");
  const repo = await openUpstream({
    repo: up.repo,
    fetchUrls: [up.repo, `${up.repo}.git`],
    directory: up.directory,
  });
  try {
    const { original, updated, commit } = await upstreamTrees(repo, up, ref);
    const result = mergePackage({
      original,
      updated,
      local,
      strategy,
      lock: { repo: up.repo, directory: up.directory, ref, commit },
    });
    if (opts.strategy) {
      const kf = readKptfile(result.tree, KPTFILE);
      kf.upstream.updateStrategy = opts.strategy;
      result.tree.set(KPTFILE, Buffer.from(formatKptfile(kf)));
    }
    if (result.conflicts.length > 0 && !opts.allowConflicts) return { ...result, commit, ref };
    const written = await writeTree(dir, local, result.tree);
    return { ...result, commit, ref, written };
  } finally {
    await repo.close();
  }
}
