import { parseDraftBranch } from "./draft-branch.js";
import { type Parsed, parsed, rejected } from "./result.js";
import { parseVariantBranch } from "./variant-branch.js";

/**
 * A branch that holds an unpublished revision of a package: a draft `drafts/<package>/<workspace>`,
 * or a fan-out branch `porchlight/variant/<package>/<variant>`, which is the draft a PackageVariant
 * makes of its downstream package (as Porch's PackageVariant creates a Draft in the downstream
 * repository). A fan-out draft's workspace is its variant's name.
 */
export interface PackageBranch {
  package: string;
  workspace: string;
  /** The PackageVariant that made this draft, for a fan-out branch. */
  variant?: string;
}

/** Reads a branch name (with or without `refs/heads/`) as a draft of either kind. */
export function parsePackageBranch(branch: string): Parsed<PackageBranch> {
  const draft = parseDraftBranch(branch);
  if (draft.ok) return draft;
  const variant = parseVariantBranch(branch);
  if (variant.ok) {
    const { package: pkg, variant: name } = variant.value;
    return parsed({ package: pkg, workspace: name, variant: name });
  }
  const name = branch.startsWith("refs/heads/") ? branch.slice("refs/heads/".length) : branch;
  // The reason that names what is wrong with the scheme the branch tried.
  return rejected(name.startsWith("porchlight/variant/") ? variant.reason : draft.reason);
}
