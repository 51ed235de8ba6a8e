import type { CommandOutcome } from "../../commands/outcome.js";
import { DASHBOARD_MARKER } from "../../variants/index.js";
import type { JobContext } from "../context.js";
import { repoName } from "../context.js";
import { DASHBOARD_LABEL } from "../fanout/context.js";
import { reconcileFanout } from "../fanout/index.js";
import { fanoutContextOf } from "../fanout/jobs.js";
import { ROLLOUT_LABELS } from "../fanout/rollout.js";

/**
 * `/rollout hold|resume` on the fan-out dashboard issue (write permission, checked before): the say is
 * kept as labels of the issue, so a restarted bot reads it back. `hold` labels it
 * porchlight/rollout-hold; `resume` takes the hold and the stop away and labels it
 * porchlight/rollout-resume (manual gates open, schedules and freezes give way, until every step is
 * done). Then fan-out runs at once.
 */
export async function rolloutCommand(
  ctx: JobContext,
  input: { issue: number; action: "resume" | "hold" },
): Promise<CommandOutcome> {
  if (!ctx.config.rollout)
    return {
      kind: "refused",
      reason:
        "This repository has no `rollout:` in its `.github/porchlight.yml`, so there is no rollout to hold or resume.",
    };
  const dashboard = await ctx.port.findIssue({ label: DASHBOARD_LABEL, marker: DASHBOARD_MARKER });
  if (!dashboard || dashboard.number !== input.issue)
    return {
      kind: "refused",
      reason: `\`/rollout\` works on the fan-out dashboard issue${dashboard ? ` (#${dashboard.number})` : ""}, not here.`,
    };
  const has = new Set(dashboard.labels);
  if (input.action === "hold") {
    if (!has.has(ROLLOUT_LABELS.hold)) await ctx.port.addLabels(input.issue, [ROLLOUT_LABELS.hold]);
  } else {
    for (const label of [ROLLOUT_LABELS.hold, ROLLOUT_LABELS.stopped])
      if (has.has(label)) await ctx.port.removeLabel(input.issue, label);
    if (!has.has(ROLLOUT_LABELS.resume)) await ctx.port.addLabels(input.issue, [ROLLOUT_LABELS.resume]);
  }
  await reconcileFanout(fanoutContextOf(ctx, ctx.installation), repoName(ctx));
  return { kind: "rollout", action: input.action };
}
