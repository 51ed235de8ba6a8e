import type { PullRequest } from "../../github/port.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { packageDirs, touchedPackages, underPackageRoot } from "../packages.js";

export interface ProposalPackage {
  path: string;
  /** The proposal removes the package. */
  deletion: boolean;
}

/**
 * The packages a pull request proposes to change: the draft branch's package, and every package
 * (outermost Kptfile directory under `packageRoot`, in the base or the head) holding a changed path.
 * Kptfiles outside packageRoot are not porchlight's packages (test fixtures, vendored copies).
 */
export function proposalPackages(input: {
  pr: Pick<PullRequest, "headRef" | "labels">;
  changed: readonly string[];
  basePaths: Iterable<string>;
  headPaths: Iterable<string>;
  /** The configuration's packageRoot (default "."). */
  packageRoot?: string;
}): ProposalPackage[] {
  const root = input.packageRoot ?? ".";
  const inRoot = (d: string) => underPackageRoot(d, root);
  const head = new Set(packageDirs(input.headPaths).filter(inRoot));
  const dirs = [...new Set([...packageDirs(input.basePaths).filter(inRoot), ...head])];
  const paths = new Set(touchedPackages(input.changed, dirs));
  const draft = parsePackageBranch(input.pr.headRef);
  // A draft of a directory outside packageRoot: its render check says why nothing is checked.
  if (draft.ok && inRoot(draft.value.package)) paths.add(draft.value.package);
  const deletionLabel = input.pr.labels.includes(DELETION_LABEL);
  return [...paths].sort().map((path) => ({ path, deletion: deletionLabel || !head.has(path) }));
}
