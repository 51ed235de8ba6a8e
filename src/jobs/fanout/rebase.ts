import type { Rollout } from "../../config/rollout-schema.js";
import type { PullRequest } from "../../github/port.js";
import { type OpenPullRequest, type PackageVariant, planRebase, rebaseWhenOf } from "../../variants/index.js";
import type { RepoSnapshot } from "./snapshot.js";

/**
 * The rollout's rebase policy for one open fan-out pull request (docs/fanout.md#rebase-policy): reads the
 * facts it needs, level-triggered, only when the policy can act on them — whether the default branch has
 * commits the branch lacks (git), then, for `conflicted`, whether it still merges cleanly (one read of the
 * pull request) — and returns why it should be rebuilt on the default branch, or undefined.
 */
export async function rebaseDue(
  rollout: Rollout | undefined,
  variant: PackageVariant,
  snap: RepoSnapshot,
  pr: PullRequest,
  open: OpenPullRequest,
): Promise<string | undefined> {
  const policy = rebaseWhenOf(rollout, variant);
  const base = snap.baseSha;
  if (policy === "never" || !base || open.kind !== "update" || open.editedByOthers) return undefined;
  const behind = (await snap.port.listCommits(pr.headSha, base)).length > 0;
  if (!behind) return undefined;
  const mergeable = policy === "conflicted" ? ((await snap.port.getPull(pr.number)).mergeable ?? null) : null;
  const decision = planRebase(policy, { behind, mergeable, editedByOthers: false });
  return decision.rebase ? decision.why : undefined;
}
