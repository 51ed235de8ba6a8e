import type { PullRequest } from "../../github/port.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { checkProposal } from "../check-proposal/index.js";
import { CHECK, fromFork, type JobContext } from "../context.js";
import { type RenderDraftOutcome, renderDraft } from "../render-draft/index.js";

/**
 * An approving review of a proposal whose checks wait for a maintainer (an adopted fork's content,
 * rendered with builtins only): the review vouches for the content (adopted-trust.ts reads it back),
 * so the functions held back run now — the draft rendered again, then the proposal checked again —
 * before the review's publish is decided. Undefined when nothing waited.
 */
export async function runHeldBack(
  ctx: JobContext,
  pull: number,
  /**
   * The pull request as the review's event carried it, where trusted (publish's seenOpen): what ran is
   * the draft branch's render and the proposal's check as they read it now, and the publish after is
   * guarded by the head it decides on.
   */
  seen?: PullRequest,
): Promise<RenderDraftOutcome | undefined> {
  const pr = seen ?? (await ctx.port.getPull(pull));
  if (pr.state !== "open" || fromFork(ctx, pr) || !parsePackageBranch(pr.headRef).ok) return undefined;
  const runs = await ctx.port.listCheckRuns(pr.headSha, [CHECK.render, CHECK.guardrails]);
  const waiting = runs.some(
    (r) => (r.name === CHECK.render || r.name === CHECK.guardrails) && r.conclusion === "action_required",
  );
  if (!waiting) return undefined;
  const rendered = await renderDraft(ctx, { branch: pr.headRef });
  await checkProposal(ctx, { pull, force: true });
  ctx.log.info({ pull, outcome: rendered.kind }, "held-back functions run after an approval");
  return rendered;
}

/** The line the review's answer starts with when held-back functions ran. */
export function heldBackRunText(user: string, rendered: RenderDraftOutcome): string {
  const what =
    rendered.kind === "pushed"
      ? `they changed files, committed as ${rendered.commitSha}`
      : rendered.kind === "clean"
        ? "the committed files were already their output"
        : rendered.kind === "failed"
          ? `the render failed: ${rendered.error}`
          : `nothing to render (${rendered.reason})`;
  return `@${user}'s approval vouches for this draft's adopted content, so the functions held back ran: ${what}.`;
}
