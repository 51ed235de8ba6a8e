import { formatOutcome } from "../../commands/outcome.js";
import type { PullRequest } from "../../github/port.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { type JobContext, withDeferred } from "../context.js";
import { answerPublishRequests } from "./answer-requests.js";
import { type FinishedPublish, resumePublish, tagOn } from "./finish.js";
import { isMergedDraft } from "./merged-drafts.js";

const MERGED_MARKER = "<!-- porchlight:publish merged -->";

/**
 * A proposal merged on GitHub itself (the merge button, the API, a merge queue) → published now, not at
 * the next sweep: the revision tag on the merge commit, the fan-out job (catalog, fan-out, the
 * management repository's dashboard), the draft branch deleted, any `/approve` that asked answered.
 * What counts is what the sweep counts (`isMergedDraft`): a draft branch of this repository merged
 * into the default branch. A fork's branch with a draft's name, another base, or any other branch
 * publishes nothing; a merge older than the package's latest revision, or holding conflict markers, is
 * refused (finishPublish) and the refusal is said once on the pull request, since nobody else will.
 * When this job tagged the merge, it says so once too. Level-triggered: the same delivery again, or
 * the `/approve` job that merged it and finished the publish itself, writes nothing.
 */
export async function publishMergedPull(
  ctx: JobContext,
  input: {
    pull: number;
    /**
     * The bot merged it (the event said so), from this draft branch at this head: a publish job of the
     * bot finishes a publish it merges in the same run, deleting the draft branch last, so a branch gone
     * (asked of git) leaves nothing to do. An auto-published fan-out pull request keeps its branch, and
     * is finished here as any merge.
     */
    ownMerge?: { headRef: string; headSha: string };
    /**
     * The pull request as its `closed` event carried it: merged, it is read no more (a merge, its commit
     * and the branch it came from never change after).
     */
    seen?: PullRequest;
  },
): Promise<FinishedPublish | undefined> {
  if (input.ownMerge) {
    const { headRef, headSha } = input.ownMerge;
    const refs = await ctx.port.listRefs();
    if (!refs.some((r) => r.ref === `refs/heads/${headRef}` && r.sha === headSha)) return undefined;
  }
  const seen = input.seen;
  const pr = seen?.merged && seen.mergeCommitSha ? seen : await ctx.port.getPull(input.pull);
  const draft = parsePackageBranch(pr.headRef);
  if (!isMergedDraft(ctx.port, pr, ctx.baseBranch) || !draft.ok || !pr.mergeCommitSha) return undefined;
  const mergeSha = pr.mergeCommitSha;
  const taggedBefore = tagOn(draft.value.package, mergeSha, await ctx.port.listRefs());
  return withDeferred(ctx, async (scoped) => {
    // the merge's own event announces it (catalog, fan-out) even when the tag and the draft's deletion
    // were made by another hand before this job ran (`rpkg approve`): the fan-out job is idempotent
    const outcome = await resumePublish(scoped, pr, true);
    if (!outcome) return undefined;
    if (outcome.kind === "refused") {
      ctx.log.warn({ pr: pr.number, commit: mergeSha }, "merged proposal not published");
      await scoped.port.ensureComment(pr.number, MERGED_MARKER, `${MERGED_MARKER}\n${outcome.message}\n`);
      return outcome;
    }
    if (outcome.kind === "published" && !taggedBefore) {
      await scoped.port.ensureComment(
        pr.number,
        MERGED_MARKER,
        `${MERGED_MARKER}\nMerged on GitHub: ${formatOutcome(outcome)}\n`,
      );
    }
    await answerPublishRequests(scoped, pr);
    return outcome;
  });
}
