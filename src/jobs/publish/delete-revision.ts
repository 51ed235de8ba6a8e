import type { PullRequest } from "../../github/port.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { parseDeletionProposal, type RevisionDeletion } from "../../lifecycle/revision-deletion.js";
import { formatRevisionTag } from "../../lifecycle/revision-tag.js";
import { withdrawFromCatalog } from "../catalog/withdraw.js";
import type { JobContext } from "../context.js";
import { markDeleted, unmarkDeleted } from "./deleted-mark.js";
import type { FinishedPublish } from "./finish.js";

/**
 * The approved deletion of one published revision (lifecycle/revision-deletion.ts): the pull request that
 * published it labelled `porchlight/deleted` (deleted-mark.ts: what keeps the sweep and every other door
 * from publishing it again), its tag deleted only while it still points at the proposed commit (a
 * compare-and-swap by git), then the pull request closed unmerged and its `deletionProposed/…` branch
 * deleted. Each step is done only if missing: a tag
 * already gone was deleted by this proposal's approval (a crash after it, a second delivery), so what
 * is left is finished and the outcome is the same.
 */
export async function carryOutRevisionDeletion(
  ctx: JobContext,
  pr: PullRequest,
  deletion: RevisionDeletion,
): Promise<FinishedPublish> {
  const tag = formatRevisionTag(deletion);
  // The record first (deleted-mark.ts): a tag gone with its publish unlabelled is what the sweep publishes again.
  const marked = await markDeleted(ctx.port, deletion.commit);
  const deleted = await ctx.port.deleteRefIf(`refs/tags/${tag}`, deletion.commit);
  if (deleted === "moved") {
    await unmarkDeleted(ctx.port, marked);
    return {
      kind: "refused",
      message: `Not deleted: the tag \`${tag}\` no longer points at ${deletion.commit.slice(0, 7)}, the commit proposed for deletion; close this pull request and propose the deletion again.`,
    };
  }
  return finishRevisionDeletion(ctx, pr, deletion);
}

/** After the tag is gone: the pull request closed (never merged) and its branch deleted. */
async function finishRevisionDeletion(
  ctx: JobContext,
  pr: PullRequest,
  deletion: RevisionDeletion,
): Promise<FinishedPublish> {
  const tag = formatRevisionTag(deletion);
  // The catalog stops offering it: a channel it headed moves back to the newest revision left, and its
  // number stays taken. Before the pull request closes, so a crash here is finished by the next approval
  // or the sweep.
  const catalog = await withdrawFromCatalog(ctx.port, {
    package: deletion.package,
    revision: `v${deletion.revision}`,
    reason: `deleted by #${pr.number}`,
    author: ctx.bot.author,
  });
  if (catalog.kind === "refused")
    ctx.log.warn({ pr: pr.number, tag, why: catalog.message }, "deleted revision left in the catalog");
  // Its followers are re-planned now (the channel moved back), not at the next sweep: no event says a tag went.
  ctx.outbox.add({ task: "fanout-wanted", target: { kind: "here" }, reason: `revision ${tag} deleted` });
  if (pr.state === "open") await ctx.port.updatePull(pr.number, { state: "closed" });
  await ctx.port.deleteBranch(pr.headRef);
  ctx.log.info({ pr: pr.number, tag, commit: deletion.commit }, "revision deleted");
  return { kind: "deleted", package: deletion.package, mergeSha: deletion.commit, tag };
}

/**
 * The open revision-deletion proposals whose tag is already gone (a crash between deleting it and
 * closing the pull request, or a tag deleted by hand while it was proposed), finished: what the sweep
 * does for them. Their publish is labelled deleted first, so that the sweep's look for unfinished
 * publishes, after this, leaves it alone.
 */
export async function finishRevisionDeletions(
  ctx: JobContext,
  input: { refs: readonly RefInfo[]; openPulls: readonly PullRequest[] },
): Promise<number> {
  const { tags } = indexRefs(input.refs);
  let finished = 0;
  for (const pr of input.openPulls) {
    const deletion = parseDeletionProposal(pr);
    if (!deletion || tags.has(formatRevisionTag(deletion))) continue;
    await markDeleted(ctx.port, deletion.commit);
    await finishRevisionDeletion(ctx, pr, deletion);
    finished++;
  }
  return finished;
}

/** What the pull request's comment says of a deletion carried out. */
export function deletedText(outcome: { package: string; mergeSha: string; tag?: string }): string {
  if (outcome.tag)
    return `Deleted revision **${outcome.tag}** (its tag, on ${outcome.mergeSha.slice(0, 7)}). The package's other revisions stay.`;
  return `Deleted **${outcome.package}** from the base branch (merge ${outcome.mergeSha.slice(0, 7)}). Its published revisions keep their tags.`;
}
