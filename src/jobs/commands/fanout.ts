import type { FanoutCounts } from "../../commands/outcome.js";
import { repoName } from "../context.js";
import { type FanoutReport, reconcileFanout } from "../fanout/index.js";
import { fanoutContextOf } from "../fanout/jobs.js";
import type { VerbHandler } from "./types.js";

/** `/fanout`: reconcile this repository's variants now (what the periodic sweep would do). */
export const fanout: VerbHandler<"fanout"> = async (ctx) => {
  const report = await reconcileFanout(fanoutContextOf(ctx, ctx.installation), repoName(ctx));
  return { kind: "fanout", ...fanoutCounts(report) };
};

/**
 * What a fan-out run did, counted from its report (never from what it planned): pull requests opened,
 * updated, merged (automerge, auto-publish), failed, and the variants left as they were.
 */
function fanoutCounts(report: FanoutReport): FanoutCounts {
  const by = (action: string) => report.pullRequests.filter((p) => p.action === action).length;
  const opened = by("created");
  const updated = by("updated");
  const failed = report.failures.map((f) => ({ variant: f.variant, error: f.error }));
  // One row per variant: what is not opened, updated, merged, failed or held by a problem was left as it was.
  const variants = report.actions.length;
  const problems = new Set(report.problems.map((p) => p.variant));
  const held = report.actions.filter((a) => a.kind === "skip" && problems.has(a.variant)).length;
  return {
    opened,
    updated,
    merged: report.published.length,
    unchanged: Math.max(0, variants - opened - updated - failed.length - report.published.length - held),
    failed,
    problems: report.problems.map((p) => ({ variant: p.variant, error: p.error })),
  };
}
