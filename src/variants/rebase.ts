import type { RebaseWhen, Rollout } from "../config/rollout-schema.js";
import { stepOf } from "./rollout.js";
import type { PackageVariant } from "./schema.js";

/**
 * The rebase policy (`rebaseWhen`, docs/fanout.md#rebase-policy): whether an open fan-out pull request
 * that already proposes the variant's target is rebuilt on its downstream's default branch after that
 * branch moved. A new upstream revision or a changed variant rebuilds the pull request whatever the
 * policy (planFanout's `update`); this only decides for a pull request fan-out would otherwise leave alone.
 * Pure and level-triggered: the facts are read from GitHub and git on every run, nothing is remembered.
 */

/** Without a rollout, or a rollout that does not say: a moved default branch leaves the pull request alone. */
const DEFAULT_REBASE_WHEN: RebaseWhen = "never";

/** The policy of a variant: its step's `rebaseWhen`, else the rollout's, else DEFAULT_REBASE_WHEN. */
export function rebaseWhenOf(rollout: Rollout | undefined, variant: PackageVariant): RebaseWhen {
  if (!rollout) return DEFAULT_REBASE_WHEN;
  const step = stepOf(rollout, variant);
  const fromStep = step === undefined ? undefined : rollout.steps[step]?.rebaseWhen;
  return fromStep ?? rollout.rebaseWhen ?? DEFAULT_REBASE_WHEN;
}

/** What the executing layer read of one open fan-out pull request. */
export interface RebaseFacts {
  /**
   * The default branch moved past the pull request's merge base: it has commits the pull request's branch
   * lacks (`git log head..base` is not empty).
   */
  behind: boolean;
  /** GitHub's `mergeable`: false when it no longer merges cleanly, null while GitHub computes it. */
  mergeable: boolean | null;
  /** Commits by someone other than the bot are on the branch: fan-out never rewrites those. */
  editedByOthers: boolean;
}

export type RebaseDecision = { rebase: boolean; why: string };

/** Whether to rebuild the pull request on the default branch now, and why (or why not), in words. */
export function planRebase(policy: RebaseWhen, facts: RebaseFacts): RebaseDecision {
  if (!facts.behind) return { rebase: false, why: "up to date with the default branch" };
  if (facts.editedByOthers)
    return {
      rebase: false,
      why: "behind the default branch, but it has commits from others, which fan-out does not rewrite",
    };
  switch (policy) {
    case "never":
      return {
        rebase: false,
        why: "behind the default branch; rebaseWhen: never waits for the next upstream revision",
      };
    case "conflicted":
      if (facts.mergeable === false)
        return {
          rebase: true,
          why: "it no longer merges cleanly into the default branch (rebaseWhen: conflicted)",
        };
      return {
        rebase: false,
        why:
          facts.mergeable === null
            ? "behind the default branch; GitHub has not yet said whether it still merges cleanly, the next run looks again"
            : "behind the default branch but still merges cleanly (rebaseWhen: conflicted)",
      };
    case "behind-base-branch":
      return { rebase: true, why: "the default branch moved past it (rebaseWhen: behind-base-branch)" };
  }
}
