import type { PullRequest, RepoPort } from "../../github/port.js";
import { parseDraftBranch } from "../../lifecycle/draft-branch.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";

/**
 * The merged pull requests of draft branches that still point at the merged head: publishes a crash
 * left unfinished (their branch not deleted yet), or repositories published before drafts were
 * deleted. Only branches without an open proposal are asked about, one listing each.
 */
export async function mergedDrafts(
  port: RepoPort,
  input: { refs: readonly RefInfo[]; openPulls: readonly PullRequest[]; baseBranch: string },
): Promise<PullRequest[]> {
  const open = new Set(input.openPulls.map((p) => p.headRef));
  const found: PullRequest[] = [];
  for (const [branch, sha] of indexRefs(input.refs).branches) {
    if (open.has(branch) || !parseDraftBranch(branch).ok) continue;
    const merged = (await port.listPullsFrom(branch)).find(
      (p) => p.merged && p.mergeCommitSha && p.headSha === sha && p.baseRef === input.baseBranch,
    );
    if (merged) found.push(merged);
  }
  return found;
}
