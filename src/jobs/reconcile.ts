import { parseDraftBranch } from "../lifecycle/draft-branch.js";
import { indexRefs } from "../lifecycle/refs.js";
import { checkProposal } from "./check-proposal/index.js";
import type { JobContext } from "./context.js";
import { renderDraft } from "./render-draft/index.js";

export interface SweepResult {
  drafts: number;
  proposals: number;
  failures: { what: string; error: string }[];
}

/**
 * The periodic sweep of one repository: every draft branch rendered and every open proposal checked,
 * each brought one step toward its desired state. Jobs skip what is already done, so a sweep over a
 * settled repository only reads. Webhooks make porchlight fast; this makes it correct after a missed
 * delivery or a crash.
 */
export async function reconcileRepo(ctx: JobContext): Promise<SweepResult> {
  const [refs, pulls] = await Promise.all([ctx.port.listRefs(), ctx.port.listOpenPulls()]);
  const result: SweepResult = { drafts: 0, proposals: 0, failures: [] };
  const attempt = async (what: string, step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (e) {
      result.failures.push({ what, error: e instanceof Error ? e.message : String(e) });
      ctx.log.warn({ err: e, what }, "reconcile step failed");
    }
  };
  for (const branch of indexRefs(refs).branches.keys()) {
    if (!parseDraftBranch(branch).ok) continue;
    result.drafts++;
    await attempt(branch, () => renderDraft(ctx, { branch }));
  }
  for (const pr of pulls) {
    if (pr.baseRef !== ctx.baseBranch) continue;
    result.proposals++;
    await attempt(`#${pr.number}`, () => checkProposal(ctx, { pull: pr.number }));
  }
  return result;
}
