import type { CommitAuthor } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import { FanoutStepError } from "./context.js";
import type { RepoSnapshot } from "./snapshot.js";

export type BranchPush =
  | { kind: "pushed"; sha: string }
  | { kind: "unchanged"; sha: string }
  | { kind: "nothing" };

/**
 * Puts `tree` as the content of `dir` on a fan-out branch, by git push without force: on top of the
 * branch when it holds commits not on the base branch (an open pull request keeps its history), else on
 * top of the base branch (a fast-forward even for a branch left over from a merged pull request). A tree
 * already there pushes nothing. Someone pushing meanwhile → the branch is read again and tried once more.
 * With `rebase` (the rollout's rebase policy, docs/fanout.md#rebase-policy) an open pull request's branch
 * is rebuilt on the base branch instead, replacing its commits only if it is still where it was read.
 */
export async function pushVariantBranch(
  snap: RepoSnapshot,
  input: {
    branch: string;
    dir: string;
    tree: FileTree;
    message: string;
    author: CommitAuthor;
    rebase?: boolean;
  },
): Promise<BranchPush> {
  const base = snap.baseSha;
  if (!base)
    throw new FanoutStepError(
      `${snap.repository.fullName} has no ${snap.repository.defaultBranch} branch yet`,
    );
  let head = snap.branches.get(input.branch);
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rebase, ...commit } = input;
    // Only the head read with the facts is replaced: a branch that moved since is pushed on top of, as
    // without the policy (someone else's commit there is never dropped).
    const replaces = rebase && attempt === 0 && head && head !== base ? head : undefined;
    const parent = !replaces && head && (await snap.port.listCommits(base, head)).length > 0 ? head : base;
    const pushed = await snap.port.commitTree({ ...commit, parent, ...(replaces ? { replaces } : {}) });
    if (pushed.ok) {
      snap.branches.set(input.branch, pushed.sha);
      return { kind: "pushed", sha: pushed.sha };
    }
    if (pushed.reason === "unchanged") {
      // On the base itself, the content is there already: a pull request would propose nothing.
      return parent === head ? { kind: "unchanged", sha: head } : { kind: "nothing" };
    }
    head = (await snap.port.listRefs()).find((r) => r.ref === `refs/heads/${input.branch}`)?.sha;
  }
  throw new FanoutStepError(
    `${snap.repository.fullName}: branch ${input.branch} moved twice while fan-out pushed to it; the next run tries again`,
  );
}
