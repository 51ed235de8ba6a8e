import type { PullRequest } from "../../github/port.js";
import {
  type DeclinedPullRequest,
  type FanoutPlan,
  parseVariantPullRequestBody,
} from "../../variants/index.js";
import type { FanoutState } from "./read-state.js";

/**
 * The variants a plan would open a new pull request for (a clone or update with none open), each with the
 * newest pull request of its branch when a person closed it without merging: the planner then skips that
 * target (Renovate's rule). GitHub is the record: the closed pull request, found by its head branch, and
 * the revision in its body marker. One listing per such variant, read only when a write would follow.
 */
export async function readDeclined(
  state: FanoutState,
  plan: FanoutPlan,
): Promise<Map<string, DeclinedPullRequest>> {
  const declined = new Map<string, DeclinedPullRequest>();
  for (const action of plan.actions) {
    if ((action.kind !== "clone" && action.kind !== "update") || action.pullRequest !== undefined) continue;
    const snap = state.snapshots.get(action.downstream.repo);
    if (!snap) continue;
    const newest = (await snap.port.listPullsFrom(action.branch))[0];
    const found = newest && declinedPullRequest(newest);
    if (found) declined.set(action.variant, found);
  }
  return declined;
}

/** A fan-out clone or update pull request closed without merging, as the planner reads it. */
function declinedPullRequest(pr: PullRequest): DeclinedPullRequest | undefined {
  if (pr.state !== "closed" || pr.merged) return undefined;
  const marker = parseVariantPullRequestBody(pr.body);
  if (!marker?.to || (marker.kind !== "clone" && marker.kind !== "update")) return undefined;
  return {
    number: pr.number,
    targetRevision: marker.to,
    ...(marker.specHash ? { specHash: marker.specHash } : {}),
    reapply: marker.kind === "update" && marker.from === marker.to,
  };
}
