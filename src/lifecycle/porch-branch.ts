import { packagePathProblem } from "./package-path.js";
import { type Parsed, parsed, rejected } from "./result.js";
import { workspaceProblem } from "./workspace.js";

/**
 * The branches Porch itself keeps for unpublished revisions (pkg/externalrepo/git): a Draft on
 * `drafts/<package>/<workspace>` (porchlight's own draft scheme too), a Proposed revision on
 * `proposed/<package>/<workspace>` (porchlight proposes with a pull request instead), and a published
 * revision proposed for deletion on `deletionProposed/<package>/<workspace>`. porchlight lists a
 * repository Porch wrote by these.
 */
type PorchBranchKind = "Draft" | "Proposed" | "DeletionProposed";

export interface PorchBranch {
  kind: PorchBranchKind;
  package: string;
  workspace: string;
}

const PREFIXES: readonly [string, PorchBranchKind][] = [
  ["drafts/", "Draft"],
  ["proposed/", "Proposed"],
  ["deletionProposed/", "DeletionProposed"],
];

/** Reads a branch name (with or without `refs/heads/`) as one of Porch's revision branches. */
export function parsePorchBranch(branch: string): Parsed<PorchBranch> {
  const name = branch.startsWith("refs/heads/") ? branch.slice("refs/heads/".length) : branch;
  const match = PREFIXES.find(([prefix]) => name.startsWith(prefix));
  if (!match)
    return rejected(`"${name}" is none of Porch's drafts/, proposed/ or deletionProposed/ branches`);
  const [prefix, kind] = match;
  const rest = name.slice(prefix.length);
  const slash = rest.lastIndexOf("/");
  if (slash <= 0)
    return rejected(`"${name}" needs a package path and a workspace: ${prefix}<package>/<workspace>`);
  const pkg = rest.slice(0, slash);
  const workspace = rest.slice(slash + 1);
  const problem = packagePathProblem(pkg) ?? workspaceProblem(workspace);
  return problem ? rejected(problem) : parsed({ kind, package: pkg, workspace });
}
