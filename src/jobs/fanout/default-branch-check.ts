import { createHash } from "node:crypto";
import { formatProblem } from "../../variants/index.js";
import type { FanoutState } from "./read-state.js";
import { reportVariantsCheck, VARIANTS_CHECK } from "./variants-check.js";

/**
 * Check run `porchlight/variants` on the default branch's commit a fan-out run read, when its variant
 * files have problems there — a variant pushed straight to the default branch (by git, or through Porch's
 * API, which commits there) gets no pull request, so the commit carries the failure where GitHub shows
 * one: a red mark beside it in the history and on the branch, each problem at its file and line (a
 * refused upstream among them: who may make the bot read what). Once such a run is there, later runs on
 * the same commit update it (an access granted turns it green). A commit with clean variant files and no
 * such run is left alone: fan-out runs on every publish and sweep, and a check on each would be noise.
 * The same verdict on the same commit is not written again (its digest is the run's external id).
 */
export async function reportDefaultBranchCheck(state: FanoutState): Promise<"reported" | "unchanged"> {
  const { baseSha, port } = state.management;
  if (!baseSha) return "unchanged";
  const problems = state.problems;
  const existing = (await port.listCheckRuns(baseSha)).find((r) => r.name === VARIANTS_CHECK);
  if (problems.length === 0 && !existing) return "unchanged";
  const digest = createHash("sha256")
    .update(JSON.stringify([state.variants.length, problems.map(formatProblem)]))
    .digest("hex")
    .slice(0, 32);
  if (existing?.status === "completed" && existing.externalId === digest) return "unchanged";
  await reportVariantsCheck(port, {
    headSha: baseSha,
    problems,
    variants: state.variants.length,
    externalId: digest,
  });
  return "reported";
}
