import { annotateMessage, annotationForBranch } from "../../lifecycle/kpt-trailer.js";
import { GitCommandError } from "../git-process.js";
import type { PushResult, RepoPushes } from "../port.js";
import type { CacheClone } from "./clone.js";
import { commitWithIndex } from "./commit-index.js";
import { commitObjects } from "./commit-objects.js";
import type { InProcessUse } from "./in-process.js";
import { pushRefs } from "./push.js";
import { keepTip } from "./tips.js";
import type { TreeReader } from "./trees.js";

/** What GitRepo.commitTree commits: the port's (`tree` as the content of `dir` on top of `parent`). */
export type CommitInput = Parameters<RepoPushes["commitTree"]>[0];

/** The commit's message: with the kpt annotation its branch implies (or the one given; none for null). */
function commitMessage(input: CommitInput): string {
  const kpt = input.kpt === null ? undefined : (input.kpt ?? annotationForBranch(input.branch));
  return kpt ? annotateMessage(input.message, kpt) : input.message;
}

/**
 * Commits `tree` as the content of `dir` on top of `parent` and pushes it to `branch` without force.
 * The objects are written in this process (commit-objects.ts) where it writes what git would; else the
 * tree is built in a throwaway index by git (commit-index.ts).
 */
export async function commitTree(
  clone: CacheClone,
  use: InProcessUse,
  trees: TreeReader,
  input: CommitInput,
): Promise<PushResult> {
  await clone.init();
  const message = commitMessage(input);
  const made =
    (await commitObjects(clone, trees, input, message)) ?? (await commitWithIndex(clone, input, message));
  if (made === "unchanged") return { ok: false, reason: "unchanged" };
  return pushCommit(clone, use, input, made);
}

/** Pushes `commit` to the branch (with a lease where it replaces a commit), never with force. */
async function pushCommit(
  clone: CacheClone,
  use: InProcessUse,
  input: CommitInput,
  commit: string,
): Promise<PushResult> {
  const ref = `refs/heads/${input.branch}`;
  try {
    const pushed = await pushRefs(
      clone,
      use,
      [{ ref, to: commit, ...(input.replaces ? { lease: input.replaces } : {}) }],
      { bases: [input.parent, input.replaces] },
    );
    // unchanged: the branch was already at this very commit — another request pushed the same (a commit
    // is the same to the second when its tree, parent, message, author and time are)
    if (input.exclusive && pushed.get(ref) === "unchanged") return { ok: false, reason: "non-fast-forward" };
  } catch (e) {
    // the remote's branch moved, or was not where the lease said
    if (e instanceof GitCommandError && e.kind === "rejected")
      return { ok: false, reason: "non-fast-forward" };
    throw e;
  }
  await keepTip(clone.gitDir, ref, commit);
  return { ok: true, sha: commit };
}
