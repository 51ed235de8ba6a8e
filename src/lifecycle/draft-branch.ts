import { packagePathProblem } from "./package-path.js";
import { type Parsed, parsed, rejected } from "./result.js";
import { workspaceProblem } from "./workspace.js";

export const DRAFT_PREFIX = "drafts/";

/** A draft package revision's branch: `drafts/<package-path>/<workspace>`. */
export interface DraftRef {
  package: string;
  workspace: string;
}

export function formatDraftBranch({ package: pkg, workspace }: DraftRef): string {
  const problem = packagePathProblem(pkg) ?? workspaceProblem(workspace);
  if (problem) throw new Error(`cannot name a draft branch: ${problem}`);
  return `${DRAFT_PREFIX}${pkg}/${workspace}`;
}

/** Reads a branch name (with or without `refs/heads/`); the last part is the workspace. */
export function parseDraftBranch(branch: string): Parsed<DraftRef> {
  const name = branch.startsWith("refs/heads/") ? branch.slice("refs/heads/".length) : branch;
  if (!name.startsWith(DRAFT_PREFIX)) return rejected(`"${name}" does not start with "${DRAFT_PREFIX}"`);
  const rest = name.slice(DRAFT_PREFIX.length);
  const slash = rest.lastIndexOf("/");
  if (slash <= 0)
    return rejected(`"${name}" needs a package path and a workspace: drafts/<package>/<workspace>`);
  const pkg = rest.slice(0, slash);
  const workspace = rest.slice(slash + 1);
  const problem = packagePathProblem(pkg) ?? workspaceProblem(workspace);
  return problem ? rejected(problem) : parsed({ package: pkg, workspace });
}
