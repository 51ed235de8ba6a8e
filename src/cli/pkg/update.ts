import { hasUncommittedChanges } from "../../github/worktree.js";
import { type FileTree, readTree, type TreeChange, writeTree } from "../../kpt/tree.js";
import {
  isStrategy,
  MergeError,
  type MergeResult,
  mergePackage,
  type UpdateStrategy,
  type UpstreamInfo,
  upstreamOf,
} from "../../merge/index.js";
import { setUpdateStrategy } from "../../merge/kptfile.js";
import { openUpstream, type Upstream } from "./upstream.js";

/**
 * `pkg update` on disk: reads the local package, fetches the upstream its Kptfile names (the original
 * at upstreamLock's commit, the new revision at the given or recorded ref), merges in memory, and
 * writes only when the merge is whole (no conflicts, unless allowed). On any error the local package
 * is untouched.
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

/** The three trees of an update: original (at the lock commit), updated (at `ref`), with the resolved ref. */
export async function upstreamTrees(
  upstream: Upstream,
  up: UpstreamInfo,
  ref: string,
): Promise<{ original: FileTree; updated: FileTree; commit: string; resolvedRef: string }> {
  const { commit, resolvedRef } = await upstream.resolve(ref, up.directory);
  const updated = await upstream.read(commit, up.directory);
  const original = up.lockCommit ? await upstream.read(up.lockCommit, up.directory) : new Map();
  return { original, updated, commit, resolvedRef };
}

export async function updatePackage(dir: string, opts: UpdateOptions = {}): Promise<UpdateOutcome> {
  const local = await readTree(dir);
  const up = upstreamOf(local, dir);
  if (!opts.allowDirty && (await hasUncommittedChanges(dir))) {
    throw new MergeError(
      `package "${dir}" has uncommitted changes; commit them first so the update can be reviewed and undone (or pass --allow-dirty)`,
    );
  }
  const ref = opts.ref ?? up.ref;
  const strategy = opts.strategy ?? (up.strategy && isStrategy(up.strategy) ? up.strategy : "resource-merge");
  const upstream = await openUpstream(up.repo);
  try {
    const { original, updated, commit, resolvedRef } = await upstreamTrees(upstream, up, ref);
    const lock = { repo: up.repo, directory: up.directory, ref, resolvedRef, commit };
    const result = mergePackage({ original, updated, local, strategy, lock });
    if (opts.strategy) setUpdateStrategy(result.tree, opts.strategy);
    if (result.conflicts.length > 0 && !opts.allowConflicts) return { ...result, commit, ref };
    const written = await writeTree(dir, local, result.tree);
    return { ...result, commit, ref, written };
  } finally {
    await upstream.close();
  }
}
