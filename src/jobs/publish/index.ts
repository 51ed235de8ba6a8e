import { setTimeout as sleep } from "node:timers/promises";
import { forkNotDraft } from "../../commands/authorize.js";
import { GitHubError, type MergeRefusal, MergeRefused } from "../../github/errors.js";
import type { PullRequest } from "../../github/port.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { annotateMessage } from "../../lifecycle/kpt-trailer.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import {
  type CheckRunInfo,
  closedRefusal,
  decidePublish,
  type PublishTrigger,
} from "../../lifecycle/publish.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { parseDeletionProposal, type RevisionDeletion } from "../../lifecycle/revision-deletion.js";
import { formatRevisionTag } from "../../lifecycle/revision-tag.js";
import { reservedRevision } from "../catalog/read.js";
import { fromFork, type JobContext } from "../context.js";
import { carryOutRevisionDeletion } from "./delete-revision.js";
import { type FinishedPublish, finishPublish } from "./finish.js";
import { gatherFacts, type PublishFacts } from "./gather.js";
import { publishedWorkspaceOf } from "./workspace.js";

/** Who asked to publish: an approving review (on the head it reviewed), or `/approve`. */
export type PublishRequest =
  | { kind: "review"; user: string; commitId: string }
  | {
      kind: "command";
      user: string;
      /**
       * Porch's approve by the command line: the caller's approval counts, their own proposal's too,
       * unless the repository's configuration sets requiredApprovals (reviews by others).
       */
      porchApprove?: boolean;
    };

export type PublishOutcome = FinishedPublish;

/** A publish this job did not merge itself, said so. */
function mergedBefore(outcome: FinishedPublish): FinishedPublish {
  return outcome.kind === "published" ? { ...outcome, alreadyMerged: true } : outcome;
}

/**
 * Approve → publish. Reads the proposal, its reviews, checks and refs; decides (lifecycle's
 * decidePublish); merges naming the reviewed head SHA; then finishPublish: tags `<package>/v<N>` on the
 * merge commit, records its fan-out in the job's outbox and deletes the draft branch. A proposal already merged (a
 * job run again after a crash, or someone else merging first, even between this job's read and its
 * merge) only gets what is missing, and the outcome says it was already published.
 */
export async function publishProposal(
  ctx: JobContext,
  input: {
    pull: number;
    request: PublishRequest;
    /**
     * The pull request and its head's check runs as the caller read them an instant before (approve,
     * which found the checks complete at its first look): not asked again.
     */
    read?: { pr: PullRequest; checkRuns: CheckRunInfo[] };
    /** The pull request as the review's event carried it: trusted where seenOpen says. */
    seen?: PullRequest;
  },
): Promise<PublishOutcome> {
  const pr = input.read?.pr ?? seenOpen(input.seen) ?? (await ctx.port.getPull(input.pull));
  // An approving review (or a merge by hand) of a fork's pull request publishes nothing.
  if (fromFork(ctx, pr)) return refused(forkNotDraft("approve", pr.number, pr.headRepo));
  const revisionDeletion = parseDeletionProposal(pr);
  if (revisionDeletion) return deleteRevision(ctx, pr, revisionDeletion, input.request);
  const draft = parsePackageBranch(pr.headRef);
  if (!draft.ok) {
    return refused(
      `#${pr.number} is not a package proposal: its branch \`${pr.headRef}\` is not a draft (drafts/<package>/<workspace>, or a fan-out branch porchlight/variant/<package>/<variant>).`,
    );
  }
  const pkg = draft.value.package;
  if (pr.merged && pr.mergeCommitSha) {
    const deletion = pr.labels.includes(DELETION_LABEL);
    return mergedBefore(
      await finishPublish(ctx, { pr, package: pkg, mergeSha: pr.mergeCommitSha, deletion }),
    );
  }
  const facts = await gatherFacts(ctx.port, pr, { checks: input.read?.checkRuns ?? true });
  const decision = decidePublish({
    package: pkg,
    pullRequest: pr,
    trigger: await triggerOf(ctx, facts, input.request),
    reviews: facts.reviews,
    checkRuns: facts.checkRuns,
    requiredApprovals: ctx.config.requiredApprovals,
    mergeMethod: ctx.config.mergeMethod,
    nextRevision: nextRevision(pkg, facts.refs, await reservedRevision(ctx.port, facts.refs, pkg)),
  });
  if (decision.kind === "refuse") return refused(decision.message);
  if (decision.kind === "delete-revision") return refused(`#${pr.number} deletes no revision.`);
  const workspaceName = await publishedWorkspaceOf(ctx.port, facts.refs, draft.value);
  let mergeSha: string | undefined;
  for (let attempt = 1; mergeSha === undefined; attempt++) {
    try {
      mergeSha = await ctx.port.mergePull(pr.number, {
        sha: decision.mergeSha,
        method: decision.mergeMethod,
        title:
          decision.kind === "publish"
            ? `Publish ${decision.tag} (#${pr.number})`
            : `Delete ${pkg} (#${pr.number})`,
        // Porch's `kpt:` line: the published revision keeps its workspace's name, read back from here.
        message: annotateMessage(`From ${pr.headRef}.`, { package: pkg, workspaceName }),
      });
    } catch (e) {
      if (!(e instanceof GitHubError && (e.kind === "conflict" || e instanceof MergeRefused))) throw e;
      // Someone merged it meanwhile (`rpkg approve` and the bot answering its review, a person on
      // GitHub): not a failure; the publish is finished (tagged if it is not yet) and reported as is.
      // (the base moved under the merge: another proposal's merge landed first, read at once)
      const baseMoved = e instanceof MergeRefused && e.refusal.kind === "base-moved";
      const now =
        mayBeAnotherMerge(e) && !baseMoved
          ? await settledPull(ctx, pr.number, decision.mergeSha)
          : await ctx.port.getPull(pr.number);
      if (now.merged && now.mergeCommitSha) {
        const deletion = now.labels.includes(DELETION_LABEL);
        return mergedBefore(
          await finishPublish(ctx, { pr: now, package: pkg, mergeSha: now.mergeCommitSha, deletion }),
        );
      }
      // closed since the event that asked was sent (the pull request as it carried it was open)
      if (now.state !== "open") return refused(closedRefusal().message);
      // Another proposal's merge moved the base branch under this one (publishes at once): the pull
      // request is still open at the reviewed head, so it is merged again onto the new base.
      if (baseMovedOnly(now, decision.mergeSha) && attempt < MERGE_ATTEMPTS) continue;
      return refused(
        e instanceof MergeRefused
          ? mergeRefusedText(e.refusal, { pr: pr.number, base: ctx.baseBranch, method: decision.mergeMethod })
          : `Not published: the head moved after ${decision.mergeSha.slice(0, 7)} was reviewed; review the new head and approve again.`,
      );
    }
  }
  return finishPublish(ctx, {
    pr,
    package: pkg,
    mergeSha,
    deletion: decision.kind === "delete",
    refs: facts.refs,
  });
}

/**
 * The pull request as an approving review's event carried it, where deciding on it cannot publish what
 * was not approved: open and unmerged then, from a draft or fan-out branch (a revision's deletion is
 * read: its label lands after its pull request opens). What may have changed since is what the merge
 * guards — it names the head the decision was made on, and GitHub refuses it when the head moved, the
 * pull request closed or was merged meanwhile (each read then, below) — or what is read anyway (the
 * reviews, the head's checks, the refs). Anything else is read from GitHub.
 */
export function seenOpen(seen: PullRequest | undefined): PullRequest | undefined {
  if (seen?.state !== "open" || seen.merged || !parsePackageBranch(seen.headRef).ok) return undefined;
  return seen;
}

/** Who asked, as decidePublish weighs it: their permission, and whether their approval counts. */
async function triggerOf(
  ctx: JobContext,
  facts: PublishFacts,
  request: PublishRequest,
): Promise<PublishTrigger> {
  const permission = await facts.permissionOf(request.user);
  return request.kind === "review"
    ? { kind: "review", user: request.user, permission, commitId: request.commitId }
    : {
        kind: "command",
        user: request.user,
        permission,
        callerApproves: request.porchApprove === true && !ctx.config.requiredApprovalsSet,
      };
}

/**
 * Approving a proposal to delete one published revision: decided as a publish is (who may approve,
 * approvals of the head; no check, since the pull request changes no file), then the tag deleted
 * (carryOutRevisionDeletion). A tag already gone was deleted by this proposal: what is left is finished.
 */
async function deleteRevision(
  ctx: JobContext,
  pr: PullRequest,
  deletion: RevisionDeletion,
  request: PublishRequest,
): Promise<PublishOutcome> {
  const tag = formatRevisionTag(deletion);
  // it changes no file: no check is asked for (decidePublish weighs none for a revision's deletion)
  const facts = await gatherFacts(ctx.port, pr, { checks: false });
  // Merged by GitHub's button (the merge was a writer's approval, as a merged proposal publishes).
  if (!pr.merged && indexRefs(facts.refs).tags.has(tag)) {
    const decision = decidePublish({
      package: deletion.package,
      pullRequest: pr,
      trigger: await triggerOf(ctx, facts, request),
      reviews: facts.reviews,
      checkRuns: facts.checkRuns,
      requiredApprovals: ctx.config.requiredApprovals,
      mergeMethod: ctx.config.mergeMethod,
      nextRevision: 0,
      deletesRevision: { tag, commit: deletion.commit },
    });
    if (decision.kind === "refuse") return refused(decision.message.replace(/^Not published/, "Not deleted"));
  }
  return carryOutRevisionDeletion(ctx, pr, deletion);
}

/** A refusal another merge of the same pull request, under way, would cause (not a rule nor a setting). */
function mayBeAnotherMerge(e: GitHubError): boolean {
  return e instanceof MergeRefused
    ? e.refusal.kind === "not-mergeable" || e.refusal.kind === "base-moved"
    : e.kind === "conflict";
}

/** How many times a merge is tried while other merges move the base branch under it. */
const MERGE_ATTEMPTS = 5;

/**
 * Whether a refused merge of a pull request, read again (`now`), was refused for the base branch alone:
 * still open, unmerged, at the reviewed head and not known to conflict.
 */
function baseMovedOnly(now: PullRequest, reviewedHead: string): boolean {
  return now.state === "open" && !now.merged && now.headSha === reviewedHead && now.mergeable !== false;
}

/** How long a refused merge waits for another merge of the same pull request to land: 7.75 s at most. */
const MERGE_SETTLE_DELAYS_MS = [250, 500, 1000, 2000, 2000, 2000];

/**
 * The pull request after GitHub refused this job's merge. Another merge of it may be under way (two
 * approvals at once: GitHub refuses the second while the first lands, and the pull request reads open and
 * unmerged until it has): while it is open, unmerged, still at the reviewed head and not known to
 * conflict, it is read again, a few times, with growing pauses. A pull request that conflicts, is closed
 * or has a new head is answered at once.
 */
async function settledPull(ctx: JobContext, pull: number, reviewedHead: string): Promise<PullRequest> {
  let now = await ctx.port.getPull(pull);
  for (const ms of MERGE_SETTLE_DELAYS_MS) {
    if (now.merged || now.state !== "open" || now.mergeable === false || now.headSha !== reviewedHead)
      return now;
    await sleep(ms);
    now = await ctx.port.getPull(pull);
  }
  return now;
}

function refused(message: string): PublishOutcome {
  return { kind: "refused", message };
}

/** Why GitHub refused the merge, in GitHub's words and with what to do, one case each. */
function mergeRefusedText(r: MergeRefusal, at: { pr: number; base: string; method: string }): string {
  const github = r.github;
  switch (r.kind) {
    case "not-mergeable":
      return `Not published: GitHub cannot merge this pull request (${github}). Resolve conflicts with \`${at.base}\` and approve again.`;
    case "base-moved":
      return `Not published: \`${at.base}\` moved while GitHub merged #${at.pr} (${github}); approve again.`;
    case "method-not-allowed":
      return `Not published: this repository does not allow ${at.method} merges (${github}); set \`mergeMethod\` in \`.github/porchlight.yml\` to one it allows and approve again.`;
    case "draft":
      return `Not published: #${at.pr} is a draft pull request on GitHub (${github}); mark it ready for review and approve again.`;
    case "not-rebaseable":
      return `Not published: GitHub cannot rebase #${at.pr} onto \`${at.base}\` (${github}); bring the draft up to date with \`${at.base}\`, or use another \`mergeMethod\`, and approve again.`;
    case "protected":
      return `Not published: GitHub refused the merge (${github}): the rules of \`${at.base}\` ask for that first; approve again once they are met.`;
  }
}
