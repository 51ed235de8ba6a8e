import type { FileTree } from "../kpt/tree.js";
import type { PlainKptfile } from "./kptfile.js";
import { KPTFILE } from "./layout.js";
import { readKptfile } from "./package-merge.js";
import { MergeError } from "./types.js";

/** What a local package's Kptfile says about its upstream. */
export interface UpstreamInfo {
  kf: PlainKptfile;
  repo: string;
  /** Directory in the repository, with a leading slash. */
  directory: string;
  /** The ref recorded in `upstream.git.ref`. */
  ref: string;
  /** The commit recorded in `upstreamLock.git.commit` (what the package was cloned from). */
  lockCommit?: string;
  /** The strategy recorded in `upstream.updateStrategy`, if any. */
  strategy?: string;
}

/** Reads the upstream of the package `local` (`dir` names it in messages); refuses when there is none. */
export function upstreamOf(local: FileTree, dir: string): UpstreamInfo {
  if (!local.has(KPTFILE)) {
    throw new MergeError(
      `${dir}: no Kptfile here; only a package fetched with "pkg get" can be updated or compared with its upstream`,
    );
  }
  const kf = readKptfile(local, `${dir}/${KPTFILE}`);
  const git = kf.upstream?.git;
  if (!git?.repo) {
    throw new MergeError(
      `${dir}/${KPTFILE}: the package has no upstream (upstream.git.repo is not set); it was not fetched with "pkg get", so there is nothing to update from`,
    );
  }
  const lock = kf.upstreamLock?.git?.commit;
  return {
    kf,
    repo: String(git.repo),
    directory: String(git.directory ?? "/"),
    ref: String(git.ref ?? ""),
    lockCommit: lock ? String(lock) : undefined,
    strategy: kf.upstream?.updateStrategy ? String(kf.upstream.updateStrategy) : undefined,
  };
}
