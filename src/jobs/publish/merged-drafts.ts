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
 * What a reader that lists again and again (the API's index) keeps of mergedDraftPulls's listings, by
 * repository and branch: the head the branch was asked at, what was found, whether a proposal of it was
 * open at the last listing, and when it was asked.
 */
export type DraftPullsMemo = Map<string, Map<string, DraftListing>>;

interface DraftListing {
  sha: string;
  pulls: PullRequest[];
  open: boolean;
  at: number;
}

/**
 * How long a kept listing of a branch with no open proposal is trusted: a proposal opened and merged
 * between two listings, its branch left at the merged head (a publish a crash left unfinished), is seen
 * this late at most.
 */
const DRAFT_PULLS_TRUST_MS = 5 * 60_000;

/**
 * mergedDrafts's listings, every pull request of each branch merged at its head, into any branch: they
 * depend on the refs and the open pull requests alone, so a command can ask them before it knows its
 * base branch (from the configuration), then keep those `mergedInto` it. With `memo`, a branch is asked
 * again only when its head moved, a proposal of it was open at the last listing and is not now (it may
 * have been merged), or its listing is older than DRAFT_PULLS_TRUST_MS: a namespace of many drafts not
 * proposed costs a request per draft once, not one per draft at every reading.
 */
export async function mergedDraftPulls(
  port: RepoPulls,
  input: Omit<RepoState, "baseBranch">,
  memo?: DraftPullsMemo,
): Promise<PullRequest[]> {
  const open = new Set(input.openPulls.map((p) => p.headRef));
  const branches = [...indexRefs(input.refs).branches].filter(([branch]) => parsePackageBranch(branch).ok);
  // the repository's listings as kept, and as they are after this one (a branch gone is forgotten)
  const repo = repoKey(port);
  const before = memo?.get(repo);
  const after = new Map<string, DraftListing>();
  const now = Date.now();
  for (const [branch] of branches)
    if (open.has(branch)) after.set(branch, { sha: "", pulls: [], open: true, at: 0 });
  const asked = branches.filter(([branch]) => !open.has(branch));
  // a few listings at a time: a repository with many drafts not proposed waited for each in turn
  const found = await mapLimit(asked, 8, async ([branch, sha]) => {
    const kept = before?.get(branch);
    if (kept && kept.sha === sha && !kept.open && now - kept.at < DRAFT_PULLS_TRUST_MS) {
      after.set(branch, kept);
      return kept.pulls;
    }
    const pulls = (await port.listPullsFrom(branch)).filter(
      (p) => p.merged && p.mergeCommitSha && p.headSha === sha,
    );
    after.set(branch, { sha, pulls, open: false, at: now });
    return pulls;
  });
  memo?.set(repo, after);
  return found.flat();
}

/**
 * Draft branch `branch` of `port`'s repository was just moved by this process to `sha`, a commit it made:
 * no pull request can have been merged at a commit made an instant ago, so the next listing does not ask
 * about the branch until DRAFT_PULLS_TRUST_MS have passed, its head moves again or a proposal of it opens
 * and closes (a branch with an open proposal is not asked about at all). An API write of a draft (its
 * creation, its resources) otherwise cost a counted request at the next reading of its repository, and
 * again at each other registration's opening of it (Porch's registrations of one repository).
 */
export function noteDraftCommit(
  memo: DraftPullsMemo,
  port: Pick<RepoPulls, "id">,
  branch: string,
  sha: string,
): void {
  const repo = repoKey(port);
  const kept = memo.get(repo) ?? new Map<string, DraftListing>();
  memo.set(repo, kept);
  if (kept.get(branch)?.open) return;
  kept.set(branch, { sha, pulls: [], open: false, at: Date.now() });
}

/**
 * Pull request `pull` of repository `full` (`owner/repo`), closed (a webhook told it): when it came from a draft branch of the
 * repository itself, the branch at its head is noted as the listing would find it, merged there or not,
 * so that the next listing does not ask about the branch whose proposal just closed (it would ask: the
 * proposal open at the last listing and not now may have been merged). GitHub refuses to open a pull
 * request whose head its base already holds, so none merged at that head before it is missed (but one
 * into another base branch, which DRAFT_PULLS_TRUST_MS bounds).
 */
export function noteClosedPull(memo: DraftPullsMemo, full: string, pull: PullRequest): void {
  const key = full.toLowerCase();
  if (pull.state !== "closed" || (pull.headRepo !== null && pull.headRepo.toLowerCase() !== key)) return;
  if (!parsePackageBranch(pull.headRef).ok) return;
  const kept = memo.get(key) ?? new Map<string, DraftListing>();
  memo.set(key, kept);
  const merged = pull.merged && pull.mergeCommitSha ? [pull] : [];
  kept.set(pull.headRef, { sha: pull.headSha, pulls: merged, open: false, at: Date.now() });
}

/** A repository as DraftPullsMemo keys it, and as a pull request's head names it: `owner/repo`, lower case. */
function repoKey(port: Pick<RepoPulls, "id">): string {
  return `${port.id.owner}/${port.id.repo}`.toLowerCase();
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
  const self = repoKey(port);
  return (
    pr.headRepo?.toLowerCase() === self &&
    pr.merged &&
    !!pr.mergeCommitSha &&
    pr.baseRef === baseBranch &&
    parsePackageBranch(pr.headRef).ok
  );
}
