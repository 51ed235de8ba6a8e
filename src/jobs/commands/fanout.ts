import { repoName } from "../context.js";
import { reconcileFanout } from "../fanout/index.js";
import { fanoutContextOf } from "../fanout/jobs.js";
import type { VerbHandler } from "./types.js";

/** `/fanout`: reconcile this repository's variants now (what the periodic sweep would do). */
export const fanout: VerbHandler = async (ctx) => {
  if (!ctx.installation) {
    return {
      kind: "refused",
      reason: "`/fanout` needs the app's installation, which this run does not have.",
    };
  }
  const report = await reconcileFanout(fanoutContextOf(ctx, ctx.installation), repoName(ctx));
  if (report.failures.length > 0) {
    return {
      kind: "refused",
      reason: `Fan-out ran, but ${report.failures.length} variant${report.failures.length === 1 ? "" : "s"} failed: ${report.failures
        .slice(0, 5)
        .map((f) => `\`${f.variant}\`: ${f.error}`)
        .join("; ")}. The dashboard issue shows every downstream.`,
    };
  }
  const downstreams = report.actions.filter((a) => a.kind !== "skip").length;
  return { kind: "fanout-started", downstreams };
};
