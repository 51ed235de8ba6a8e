import type { PullRequest, RepoPulls } from "../../github/port.js";
import { DELETED_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";

/**
 * The record that a published revision was deleted: its publish — the merged proposal whose merge commit
 * the tag pointed at — labelled `porchlight/deleted`. Git cannot tell a merge never tagged (a crash, GitHub
 * deleting the head branch at the merge) from one whose tag was deleted on purpose, and the sweep
 * publishes the first kind; the label tells them apart, in the very listing the sweep already reads
 * (recently closed pull requests come with their labels), so the sweep pays no request for it. It is
 * written before the tag is deleted: a crash in between leaves a labelled publish whose tag still stands,
 * which the label does not affect (finishPublish refuses only a labelled merge that carries no tag).
 */
export function isDeletedPublish(pr: Pick<PullRequest, "labels">): boolean {
  return pr.labels.includes(DELETED_LABEL);
}

/**
 * Labels the publishes of `commit` (a revision's tagged commit) deleted; returns the pull requests
 * labelled now, so that a deletion refused after all takes its labels back (`unmarkDeleted`). A revision
 * published without a pull request (Porch's own approval) has none: nothing can publish it again.
 */
export async function markDeleted(
  port: Pick<RepoPulls, "listPullsOfCommit" | "addLabels">,
  commit: string,
): Promise<number[]> {
  const publishes = (await port.listPullsOfCommit(commit)).filter(
    (p) => p.merged && p.mergeCommitSha === commit && parsePackageBranch(p.headRef).ok,
  );
  const marked: number[] = [];
  for (const pr of publishes) {
    if (isDeletedPublish(pr)) continue;
    await port.addLabels(pr.number, [DELETED_LABEL]);
    marked.push(pr.number);
  }
  return marked;
}

/** Takes back the labels `markDeleted` wrote, when the deletion did not happen after all. */
export async function unmarkDeleted(port: Pick<RepoPulls, "removeLabel">, marked: readonly number[]) {
  for (const number of marked) await port.removeLabel(number, DELETED_LABEL);
}
