import type { PullRequest } from "../../github/port.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { parseVariantBranch } from "../../lifecycle/variant-branch.js";
import { parseVariantPullRequestBody } from "../../variants/index.js";
import { fromFork, type JobContext, repoName } from "../context.js";
import { reachManagement } from "./management.js";

export interface ChecksFinishedOutcome {
  /** The management repositories (`owner/name`) whose fan-out was asked for. */
  fanout: string[];
}

/**
 * A check run, check suite or commit status finished on `sha` of this repository. When `sha` is the
 * head of an open fan-out pull request (its checks decide an automerge), or the head of a branch a
 * fan-out pull request recently merged into (a rollout step waits for those checks before its next
 * wave), the fan-out of the management repository that opened it is asked for now, on that repository's
 * own queue: the automerge, the next wave and the dashboard follow the event, not the sweep. Anything
 * else is left alone. Reads only; the fan-out is a job in the outbox. Delivered twice, it asks twice,
 * and the second fan-out finds nothing to do.
 */
export async function onChecksFinished(
  ctx: JobContext,
  input: { sha: string },
): Promise<ChecksFinishedOutcome> {
  const concerned = await concernedPulls(ctx, input.sha);
  const names = new Set<string>();
  for (const pr of concerned) {
    const marker = parseVariantPullRequestBody(pr.body);
    // A git upstream's repository manages its variants (the default); an image's or tarball's names it.
    const name = marker?.management ?? marker?.upstream?.repo;
    if (name) names.add(name);
  }
  const fanout: string[] = [];
  const reason = `checks finished on ${repoName(ctx)}@${input.sha.slice(0, 7)}`;
  for (const name of names) {
    const reached = await reachManagement(ctx, name);
    if (!reached) {
      ctx.log.warn(
        { management: name },
        "checks finished on a fan-out pull request: its upstream is not reachable",
      );
      continue;
    }
    if (fanout.includes(reached.repository.fullName)) continue;
    fanout.push(reached.repository.fullName);
    ctx.outbox.add({ task: "fanout-wanted", target: reached.target, reason });
  }
  return { fanout };
}

/**
 * The fan-out pull requests `sha` concerns: the open ones with `sha` as their head, else the recently
 * merged ones whose base branch is now at `sha` (the rollout verifies the default branch after a merge).
 */
async function concernedPulls(ctx: JobContext, sha: string): Promise<PullRequest[]> {
  const isVariant = (pr: PullRequest) => parseVariantBranch(pr.headRef).ok && !fromFork(ctx, pr);
  const open = (await ctx.port.listOpenPulls()).filter((pr) => isVariant(pr) && pr.headSha === sha);
  if (open.length > 0) return open;
  const merged = (await ctx.port.listRecentlyClosedPulls()).filter((pr) => pr.merged && isVariant(pr));
  if (merged.length === 0) return [];
  const branches = indexRefs(await ctx.port.listRefs()).branches;
  return merged.filter((pr) => branches.get(pr.baseRef) === sha);
}
