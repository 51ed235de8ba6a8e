import { GitHubError } from "../../github/errors.js";
import type { PullRequest } from "../../github/port.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { parseDraftBranch } from "../../lifecycle/draft-branch.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import { decidePublish, type PublishTrigger } from "../../lifecycle/publish.js";
import type { RefInfo } from "../../lifecycle/refs.js";
import type { JobContext } from "../context.js";
import { gatherFacts } from "./gather.js";
import { ensureRevisionTag } from "./tag.js";

/** Who asked to publish: an approving review (on the head it reviewed), or `/approve`. */
export type PublishRequest =
  | { kind: "review"; user: string; commitId: string }
  | { kind: "command"; user: string };

export type PublishOutcome =
  | { kind: "published"; package: string; revision: number; tag: string; mergeSha: string }
  | { kind: "deleted"; package: string; mergeSha: string }
  | { kind: "refused"; message: string };

/**
 * Approve → publish. Reads the proposal, its reviews, checks and refs; decides (lifecycle's
 * decidePublish); merges naming the reviewed head SHA; tags `<package>/v<N>` on the merge commit; emits
 * the published event. A proposal already merged (a job run again after a crash) only gets what is
 * missing: its tag and event.
 */
export async function publishProposal(
  ctx: JobContext,
  input: { pull: number; request: PublishRequest },
): Promise<PublishOutcome> {
  const pr = await ctx.port.getPull(input.pull);
  const draft = parseDraftBranch(pr.headRef);
  if (!draft.ok) {
    return refused(
      `#${pr.number} is not a package proposal: its branch \`${pr.headRef}\` is not a draft (drafts/<package>/<workspace>).`,
    );
  }
  const pkg = draft.value.package;
  if (pr.merged && pr.mergeCommitSha) return finish(ctx, pr, pkg, pr.mergeCommitSha, isDeletion(pr));
  const facts = await gatherFacts(ctx.port, pr);
  const permission = await facts.permissionOf(input.request.user);
  const trigger: PublishTrigger =
    input.request.kind === "review"
      ? { kind: "review", user: input.request.user, permission, commitId: input.request.commitId }
      : { kind: "command", user: input.request.user, permission };
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
    });
  } catch (e) {
    if (e instanceof GitHubError && (e.kind === "conflict" || e.kind === "not-mergeable")) {
      return refused(
        e.kind === "conflict"
          ? `Not published: the head moved after ${decision.mergeSha.slice(0, 7)} was reviewed; review the new head and approve again.`
          : `Not published: GitHub cannot merge this pull request (${e.message}). Resolve conflicts with \`${ctx.baseBranch}\` and approve again.`,
      );
    }
    throw e;
  }
  return finish(ctx, { ...pr, refs: facts.refs }, pkg, mergeSha, decision.kind === "delete");
}

async function finish(
  ctx: JobContext,
  pr: PullRequest & { refs?: RefInfo[] },
  pkg: string,
  mergeSha: string,
  deletion: boolean,
): Promise<PublishOutcome> {
  if (deletion) return { kind: "deleted", package: pkg, mergeSha };
  const refs = pr.refs ?? (await ctx.port.listRefs());
  const tag = await ensureRevisionTag(ctx.port, pkg, mergeSha, refs);
  if (tag.created) {
    ctx.log.info({ pr: pr.number, tag: tag.tag, commit: mergeSha }, "published");
    await ctx.events.emitPublished({
      repo: ctx.port.id,
      package: pkg,
      revision: tag.revision,
      tag: tag.tag,
      commit: mergeSha,
    });
  }
  return { kind: "published", package: pkg, revision: tag.revision, tag: tag.tag, mergeSha };
}

function isDeletion(pr: PullRequest): boolean {
  return pr.labels.includes(DELETION_LABEL);
}

function refused(message: string): PublishOutcome {
  return { kind: "refused", message };
}
