import { parseVariantBranch } from "../../lifecycle/variant-branch.js";
import { parseVariantPullRequestBody } from "../../variants/index.js";
import type { JobContext } from "../context.js";
import { type FanoutReport, reconcileFanout } from "./index.js";
import { managementFanoutContext } from "./jobs.js";
import { reachManagement } from "./management.js";

/**
 * A fan-out pull request reopened by a person: the "not this revision" its closing meant is withdrawn, so
 * fan-out takes it up again at once (an open pull request is one it updates) instead of at the next
 * sweep, and the dashboard says so. Reconciles the variants managed by its upstream repository (the
 * default management repository), as `/update` does; for an OCI or tarball upstream, by the management
 * repository its body records. Anything else reopened is left alone.
 */
export async function resumeVariantPull(
  ctx: JobContext,
  input: { pull: number },
): Promise<FanoutReport | undefined> {
  const pr = await ctx.port.getPull(input.pull);
  const marker = parseVariantPullRequestBody(pr.body);
  // The repository managing it: a git upstream's repository (the default), or, for an image or tarball,
  // the one its body names.
  const upstream = marker?.management ?? marker?.upstream?.repo;
  if (pr.state !== "open" || !parseVariantBranch(pr.headRef).ok || !upstream) return undefined;
  const reached = await reachManagement(ctx, upstream);
  if (!reached) {
    ctx.log.warn(
      { pr: pr.number, upstream },
      "reopened fan-out pull request: upstream repository not reachable",
    );
    return undefined;
  }
  const management = reached.repository;
  ctx.log.info({ pr: pr.number, management: management.fullName }, "fan-out pull request reopened; resuming");
  const fanout = await managementFanoutContext(ctx, reached);
  return fanout ? reconcileFanout(fanout, management.fullName) : undefined;
}
