import type { PullRequest } from "../../github/port.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { packageDirs, touchedPackages } from "../packages.js";

export interface ProposalPackage {
  path: string;
  /** The proposal removes the package. */
  deletion: boolean;
}

/**
 * The packages a pull request proposes to change: the draft branch's package, and every package
 * (outermost Kptfile directory, in the base or the head) holding a changed path.
 */
export function proposalPackages(input: {
  pr: Pick<PullRequest, "headRef" | "labels">;
  changed: readonly string[];
  basePaths: Iterable<string>;
  headPaths: Iterable<string>;
}): ProposalPackage[] {
  const head = new Set(packageDirs(input.headPaths));
  const dirs = [...new Set([...packageDirs(input.basePaths), ...head])];
  const paths = new Set(touchedPackages(input.changed, dirs));
  const draft = parsePackageBranch(input.pr.headRef);
  if (draft.ok) paths.add(draft.value.package);
  const deletionLabel = input.pr.labels.includes(DELETION_LABEL);
  return [...paths].sort().map((path) => ({ path, deletion: deletionLabel || !head.has(path) }));
}
