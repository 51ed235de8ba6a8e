import { refNameProblem } from "./git-ref.js";
import { packagePathProblem } from "./package-path.js";
import { type Parsed, parsed, rejected } from "./result.js";

export const VARIANT_PREFIX = "porchlight/variant/";

/** The fan-out branch of one PackageVariant in its downstream repository. */
export interface VariantRef {
  /** The downstream package path. */
  package: string;
  /** The PackageVariant's name (a Kubernetes object name). */
  variant: string;
}

/** A Kubernetes object name (DNS subdomain): lowercase letters, digits, '-' and '.', at most 253. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function variantNameProblem(name: string): string | undefined {
  if (name === "") return "the variant name is empty";
  if (name.length > 253) return `the variant name "${name}" is longer than 253 characters`;
  if (!OBJECT_NAME.test(name)) {
    return `the variant name "${name}" must be a Kubernetes object name: lowercase letters, digits, '-' and '.'`;
  }
  const refProblem = refNameProblem(name);
  return refProblem ? `the variant name "${name}" ${refProblem}` : undefined;
}

export function formatVariantBranch({ package: pkg, variant }: VariantRef): string {
  const problem = packagePathProblem(pkg) ?? variantNameProblem(variant);
  if (problem) throw new Error(`cannot name a variant branch: ${problem}`);
  return `${VARIANT_PREFIX}${pkg}/${variant}`;
}

export function parseVariantBranch(branch: string): Parsed<VariantRef> {
  const name = branch.startsWith("refs/heads/") ? branch.slice("refs/heads/".length) : branch;
  if (!name.startsWith(VARIANT_PREFIX)) return rejected(`"${name}" does not start with "${VARIANT_PREFIX}"`);
  const rest = name.slice(VARIANT_PREFIX.length);
  const slash = rest.lastIndexOf("/");
  if (slash <= 0) {
    return rejected(`"${name}" needs a package path and a variant: ${VARIANT_PREFIX}<package>/<variant>`);
  }
  const pkg = rest.slice(0, slash);
  const variant = rest.slice(slash + 1);
  const problem = packagePathProblem(pkg) ?? variantNameProblem(variant);
  return problem ? rejected(problem) : parsed({ package: pkg, variant });
}

/**
 * The workspace of the draft a fan-out branch holds, fixed when the variant makes it (as Porch's
 * PackageVariant controller names each downstream draft it creates) and kept when it is published: the
 * variant's name for its first revision of the package, then `<variant>-2`, `<variant>-3`… — the next
 * after the highest of those names a published revision of the package already took (`taken`: the
 * workspaces of the package's published revisions). Publishing writes it into the merge commit's `kpt:`
 * line, where the published revision's name is read back.
 */
export function variantWorkspace(variant: string, taken: Iterable<string>): string {
  let highest = 0;
  for (const ws of taken) {
    if (ws === variant) highest = Math.max(highest, 1);
    else if (ws.startsWith(`${variant}-`)) {
      const n = ws.slice(variant.length + 1);
      if (/^[1-9][0-9]*$/.test(n)) highest = Math.max(highest, Number(n));
    }
  }
  return highest === 0 ? variant : `${variant}-${highest + 1}`;
}
