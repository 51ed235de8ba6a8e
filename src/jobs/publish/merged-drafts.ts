import type { PullRequest, RepoPort, RepoPulls } from "../../github/port.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { mapLimit } from "../fanout/limit.js";
import { isDeletedPublish } from "./deleted-mark.js";

interface RepoState {
  refs: readonly RefInfo[];
  openPulls: readonly PullRequest[];
  baseBranch: string;
}

/**
 * The merged pull requests of draft branches that still point at the merged head: publishes a crash
 * left unfinished (their branch not deleted yet), or repositories published before drafts were
 * deleted. Only branches without an open proposal are asked about, one listing each.
 */
export async function mergedDrafts(port: RepoPulls, input: RepoState): Promise<PullRequest[]> {
  return mergedInto(await mergedDraftPulls(port, input), input.baseBranch);
}

/**
 * mergedDrafts's listings, every pull request of each branch merged at its head, into any branch: they
 * depend on the refs and the open pull requests alone, so a command can ask them before it knows its
 * base branch (from the configuration), then keep those `mergedInto` it.
 */
export async function mergedDraftPulls(
  port: RepoPulls,
  input: Omit<RepoState, "baseBranch">,
): Promise<PullRequest[]> {
  const open = new Set(input.openPulls.map((p) => p.headRef));
  const asked = [...indexRefs(input.refs).branches].filter(
    ([branch]) => !open.has(branch) && parsePackageBranch(branch).ok,
  );
  // a few listings at a time: a repository with many drafts not proposed waited for each in turn
  const found = await mapLimit(asked, 8, async ([branch, sha]) =>
    (await port.listPullsFrom(branch)).filter((p) => p.merged && p.mergeCommitSha && p.headSha === sha),
  );
  return found.flat();
}

/** Of mergedDraftPulls's pull requests, the first of each branch merged into `baseBranch`. */
export function mergedInto(pulls: readonly PullRequest[], baseBranch: string): PullRequest[] {
  const branches = new Set<string>();
  return pulls.filter((p) => {
    if (p.baseRef !== baseBranch || branches.has(p.headRef)) return false;
    branches.add(p.headRef);
    return true;
  });
}

/**
 * Every publish left unfinished: the merged drafts above, and recently merged proposals whose merge
 * commit carries no revision tag of their package, whose branch is gone (GitHub's "automatically
 * delete head branches" removes it at the merge, before the bot could tag), and which are not labelled
 * `porchlight/deleted` (a revision deleted since: its tag is gone on purpose). One more request.
 */
export async function unfinishedPublishes(port: RepoPort, input: RepoState): Promise<PullRequest[]> {
  const found = await mergedDrafts(port, input);
  const tagged = new Set<string>();
  for (const [tag, sha] of indexRefs(input.refs).tags) {
    const parsed = parseRevisionTag(tag);
    if (parsed.ok) tagged.add(`${parsed.value.package}@${sha}`);
  }
  const seen = new Set(found.map((p) => p.number));
  for (const pr of await port.listRecentlyClosedPulls()) {
    if (seen.has(pr.number) || !isMergedDraft(port, pr, input.baseBranch)) continue;
    // a package's removal publishes no tag; a revision deleted since was published once (deleted-mark.ts)
    if (pr.labels.includes(DELETION_LABEL) || isDeletedPublish(pr)) continue;
    const draft = parsePackageBranch(pr.headRef);
    if (draft.ok && tagged.has(`${draft.value.package}@${pr.mergeCommitSha}`)) continue;
    found.push(pr);
  }
  return found;
}

/**
 * A publish by its shape: a pull request of a draft branch of this very repository, merged into its
 * default branch. A fork's branch is no draft, whatever its name: merging it by hand publishes nothing.
 */
export function isMergedDraft(port: RepoPort, pr: PullRequest, baseBranch: string): boolean {
  const self = `${port.id.owner}/${port.id.repo}`.toLowerCase();
  return (
    pr.headRepo?.toLowerCase() === self &&
    pr.merged &&
    !!pr.mergeCommitSha &&
    pr.baseRef === baseBranch &&
    parsePackageBranch(pr.headRef).ok
  );
}
