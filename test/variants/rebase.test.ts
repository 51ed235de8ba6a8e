import { describe, expect, it } from "vitest";
import type { Rollout } from "../../src/config/rollout-schema.js";
import { planRebase, type RebaseFacts, rebaseWhenOf } from "../../src/variants/index.js";
import { envVariant } from "../util/krm.js";

const variant = envVariant;

const facts = (over: Partial<RebaseFacts>): RebaseFacts => ({
  behind: true,
  mergeable: true,
  editedByOthers: false,
  ...over,
});

describe("rebase policy", () => {
  it("takes the step's policy, else the rollout's, else never", () => {
    const rollout: Rollout = {
      rebaseWhen: "conflicted",
      steps: [
        { name: "dev", labels: { env: "dev" }, rebaseWhen: "behind-base-branch" },
        { name: "prod", labels: { env: "prod" } },
      ],
    };
    expect(rebaseWhenOf(rollout, variant("dev-1", "dev"))).toBe("behind-base-branch");
    expect(rebaseWhenOf(rollout, variant("prod-1", "prod"))).toBe("conflicted");
    // A variant no step selects still follows the rollout's policy.
    expect(rebaseWhenOf(rollout, variant("lab-1", "lab"))).toBe("conflicted");
    expect(rebaseWhenOf({ steps: rollout.steps.slice(1) }, variant("prod-1", "prod"))).toBe("never");
    expect(rebaseWhenOf(undefined, variant("dev-1", "dev"))).toBe("never");
  });

  it("never rebuilds a pull request whose base did not move", () => {
    for (const policy of ["never", "conflicted", "behind-base-branch"] as const)
      expect(planRebase(policy, facts({ behind: false })).rebase).toBe(false);
  });

  it.each([
    // policy, mergeable, rebuilds
    ["never", true, false],
    ["never", false, false],
    ["conflicted", true, false],
    ["conflicted", null, false],
    ["conflicted", false, true],
    ["behind-base-branch", true, true],
    ["behind-base-branch", null, true],
    ["behind-base-branch", false, true],
  ] as const)("%s, behind, mergeable %s: rebuilds %s", (policy, mergeable, rebuilds) => {
    expect(planRebase(policy, facts({ mergeable })).rebase).toBe(rebuilds);
  });

  it("says why it waits while GitHub has not computed mergeability, and never rewrites others' commits", () => {
    expect(planRebase("conflicted", facts({ mergeable: null })).why).toMatch(/next run looks again/);
    expect(planRebase("behind-base-branch", facts({ editedByOthers: true }))).toEqual({
      rebase: false,
      why: "behind the default branch, but it has commits from others, which fan-out does not rewrite",
    });
    expect(planRebase("conflicted", facts({ mergeable: false, editedByOthers: true })).rebase).toBe(false);
  });
});
