import { forkNotDraft } from "../../commands/authorize.js";
import { GitHubError } from "../../github/errors.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { annotateMessage } from "../../lifecycle/kpt-trailer.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { decidePublish, type PublishTrigger } from "../../lifecycle/publish.js";
import { fromFork, type JobContext } from "../context.js";
import { type FinishedPublish, finishPublish } from "./finish.js";
import { gatherFacts } from "./gather.js";

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

/**
 * Approve → publish. Reads the proposal, its reviews, checks and refs; decides (lifecycle's
 * decidePublish); merges naming the reviewed head SHA; then finishPublish: tags `<package>/v<N>` on the
 * merge commit, emits the published event and deletes the draft branch. A proposal already merged (a
 * job run again after a crash, or someone else merging first, even between this job's read and its
 * merge) only gets what is missing, and the outcome says it was already published.
 */
export async function publishProposal(
  ctx: JobContext,
  input: { pull: number; request: PublishRequest },
): Promise<PublishOutcome> {
  const pr = await ctx.port.getPull(input.pull);
  // An approving review (or a merge by hand) of a fork's pull request publishes nothing.
  if (fromFork(ctx, pr)) return refused(forkNotDraft("approve", pr.number, pr.headRepo));
  const draft = parsePackageBranch(pr.headRef);
  if (!draft.ok) {
    return refused(
      `#${pr.number} is not a package proposal: its branch \`${pr.headRef}\` is not a draft (drafts/<package>/<workspace>, or a fan-out branch porchlight/variant/<package>/<variant>).`,
    );
  }
  const pkg = draft.value.package;
  if (pr.merged && pr.mergeCommitSha) {
    const deletion = pr.labels.includes(DELETION_LABEL);
    return finishPublish(ctx, { pr, package: pkg, mergeSha: pr.mergeCommitSha, deletion });
  }
  const facts = await gatherFacts(ctx.port, pr);
  const permission = await facts.permissionOf(input.request.user);
  const trigger: PublishTrigger =
    input.request.kind === "review"
      ? { kind: "review", user: input.request.user, permission, commitId: input.request.commitId }
      : {
          kind: "command",
          user: input.request.user,
          permission,
          callerApproves: input.request.porchApprove === true && !ctx.config.requiredApprovalsSet,
        };
  const decision = decidePublish({
    package: pkg,
    pullRequest: pr,
    trigger,
    reviews: facts.reviews,
    checkRuns: facts.checkRuns,
    requiredApprovals: ctx.config.requiredApprovals,
    mergeMethod: ctx.config.mergeMethod,
    nextRevision: nextRevision(pkg, facts.refs),
  });
  if (decision.kind === "refuse") return refused(decision.message);
  let mergeSha: string;
  try {
    mergeSha = await ctx.port.mergePull(pr.number, {
      sha: decision.mergeSha,
      method: decision.mergeMethod,
      title:
        decision.kind === "publish"
          ? `Publish ${decision.tag} (#${pr.number})`
          : `Delete ${pkg} (#${pr.number})`,
      // Porch's `kpt:` line: the published revision keeps its workspace's name, read back from here.
      message: annotateMessage(`From ${pr.headRef}.`, {
        package: pkg,
        ...(draft.value.variant ? {} : { workspaceName: draft.value.workspace }),
      }),
    });
  } catch (e) {
    if (e instanceof GitHubError && (e.kind === "conflict" || e.kind === "not-mergeable")) {
      // Someone merged it meanwhile (`rpkg approve` and the bot answering its review, a person on
      // GitHub): not a failure; the publish is finished (tagged if it is not yet) and reported as is.
      const now = await ctx.port.getPull(pr.number);
      if (now.merged && now.mergeCommitSha) {
        const deletion = now.labels.includes(DELETION_LABEL);
        return finishPublish(ctx, { pr: now, package: pkg, mergeSha: now.mergeCommitSha, deletion });
      }
      return refused(
        e.kind === "conflict"
          ? `Not published: the head moved after ${decision.mergeSha.slice(0, 7)} was reviewed; review the new head and approve again.`
          : `Not published: GitHub cannot merge this pull request (${e.message}). Resolve conflicts with \`${ctx.baseBranch}\` and approve again.`,
      );
    }
    throw e;
  }
  return finishPublish(ctx, {
    pr,
    package: pkg,
    mergeSha,
    deletion: decision.kind === "delete",
    refs: facts.refs,
  });
}

function refused(message: string): PublishOutcome {
  return { kind: "refused", message };
}
