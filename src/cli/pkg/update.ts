import { hasUncommittedChanges } from "../../github/worktree.js";
import { KPTFILE_NAME, parseKptfile } from "../../kpt/kptfile.js";
import { type FileTree, readTree, subtree, type TreeChange, writeTree } from "../../kpt/tree.js";
import {
  isStrategy,
  type MergeChange,
  type MergeConflict,
  MergeError,
  type MergeResult,
  mergePackage,
  type UpdateStrategy,
  type UpstreamInfo,
  upstreamOf,
} from "../../merge/index.js";
import { setUpdateStrategy } from "../../merge/kptfile.js";
import { isRemotePackage, join, packageDirs, within } from "../../merge/layout.js";
import { openUpstream, type Upstream, type UpstreamOptions } from "../../porch/upstream.js";

/**
 * `pkg update` on disk: reads the local package, fetches the upstream its Kptfile names (the original
 * at upstreamLock's commit, the new revision at the given or recorded ref) and merges in memory; then,
 * as kpt does, every subpackage that names an upstream of its own is updated the same way from that
 * upstream at its own recorded ref and strategy, breadth first. Files are written once, at the end,
 * and only when every merge is whole (no conflicts, unless allowed). On any error the local package
 * is untouched.
 */
export interface UpdateOptions {
  ref?: string;
  strategy?: UpdateStrategy;
  /** Write files with conflict markers instead of refusing. */
  allowConflicts?: boolean;
  /** Skip the uncommitted-changes check. */
  allowDirty?: boolean;
  /** How OCI and tarball upstreams are reached (credentials from this environment). */
  source?: UpstreamOptions;
}

/** One package updated from its own upstream ("" for the root). */
interface PackageUpdate {
  dir: string;
  ref: string;
  commit: string;
}

export interface UpdateOutcome extends MergeResult {
  commit: string;
  ref: string;
  /** Every package updated from its own upstream, the root first. */
  packages: PackageUpdate[];
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

/** Merges one package (its files relative to it) with the upstream its Kptfile names, at `ref`. */
async function updateOne(
  local: FileTree,
  up: UpstreamInfo,
  ref: string,
  strategy: UpdateStrategy,
  source: UpstreamOptions = {},
): Promise<MergeResult & { commit: string }> {
  const upstream = await openUpstream(up.repo, source);
  try {
    const { original, updated, commit, resolvedRef } = await upstreamTrees(upstream, up, ref);
    const lock = { repo: up.repo, directory: up.directory, ref, resolvedRef, commit };
    return { ...mergePackage({ original, updated, local, strategy, lock }), commit };
  } finally {
    await upstream.close();
  }
}

function recordedStrategy(up: UpstreamInfo): UpdateStrategy {
  return up.strategy && isStrategy(up.strategy) ? up.strategy : "resource-merge";
}

/** Subpackages of the package at `dir` with an upstream of their own, not inside another such one. */
function remoteChildren(tree: FileTree, dir: string): string[] {
  const remote = packageDirs(tree).filter((d) => d !== dir && within(d, dir) && isRemotePackage(tree, d));
  return remote.filter((d) => !remote.some((o) => o !== d && within(d, o)));
}

/**
 * The local package's Kptfile read as kpt reads it before an update or diff (its type, YAML and
 * fields), so a Kptfile kpt refuses is refused here in kpt's words; none at all is upstreamOf's to say.
 */
export function checkLocalKptfile(local: FileTree, dir: string): void {
  const kptfile = local.get(KPTFILE_NAME);
  if (kptfile) parseKptfile(kptfile.toString("utf8"), `${dir}/${KPTFILE_NAME}`);
}

export async function updatePackage(dir: string, opts: UpdateOptions = {}): Promise<UpdateOutcome> {
  const local = await readTree(dir);
  checkLocalKptfile(local, dir);
  const up = upstreamOf(local, dir);
  if (!opts.allowDirty && (await hasUncommittedChanges(dir))) {
    throw new MergeError(
      `package "${dir}" has uncommitted changes; commit them first so the update can be reviewed and undone (or pass --allow-dirty)`,
    );
  }
  const ref = opts.ref ?? up.ref;
  const root = await updateOne(local, up, ref, opts.strategy ?? recordedStrategy(up), opts.source);
  if (opts.strategy) setUpdateStrategy(root.tree, opts.strategy);
  const tree = root.tree;
  const conflicts: MergeConflict[] = [...root.conflicts];
  const changes: MergeChange[] = [...root.changes];
  const packages: PackageUpdate[] = [{ dir: "", ref, commit: root.commit }];

  const queue = remoteChildren(tree, "");
  for (let sub = queue.shift(); sub !== undefined; sub = queue.shift()) {
    const files = subtree(tree, sub);
    const subUp = upstreamOf(files, join(dir, sub));
    const r = await updateOne(files, subUp, subUp.ref, recordedStrategy(subUp), opts.source);
    for (const p of [...tree.keys()]) if (within(p, sub)) tree.delete(p);
    for (const [p, b] of r.tree) tree.set(join(sub, p), b);
    conflicts.push(...r.conflicts.map((c) => ({ ...c, file: join(sub, c.file) })));
    changes.push(...r.changes.map((c) => ({ ...c, file: join(sub, c.file) })));
    packages.push({ dir: sub, ref: subUp.ref, commit: r.commit });
    queue.push(...remoteChildren(r.tree, "").map((d) => join(sub, d)));
  }

  const outcome = { tree, conflicts, changes, commit: root.commit, ref, packages };
  if (conflicts.length > 0 && !opts.allowConflicts) return outcome;
  return { ...outcome, written: await writeTree(dir, local, tree) };
}
