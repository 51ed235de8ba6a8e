import { formatDraftBranch } from "./draft-branch.js";
import { packagePathProblem } from "./package-path.js";
import { indexRefs, type RefInfo, refConflict } from "./refs.js";
import { type Parsed, parsed, rejected } from "./result.js";
import { formatRevisionTag } from "./revision-tag.js";
import { workspaceProblem } from "./workspace.js";

/** A rollback, as Porch has it: a new draft whose content equals an older published revision. */
export interface RollbackPlan {
  package: string;
  /** The revision whose content the draft starts from. */
  toRevision: number;
  /** The tag to copy the package from, and the commit it points at. */
  fromTag: string;
  fromSha: string;
  workspace: string;
  /** The draft branch to create. */
  branch: string;
}

export interface RollbackInput {
  package: string;
  toRevision: number;
  refs: readonly RefInfo[];
  /** The draft's workspace; default `rollback-v<N>`, with `-2`, `-3`, … when taken. */
  workspace?: string;
}

export function planRollback({
  package: pkg,
  toRevision,
  refs,
  workspace,
}: RollbackInput): Parsed<RollbackPlan> {
  const pathProblem = packagePathProblem(pkg);
  if (pathProblem) return rejected(pathProblem);
  if (!Number.isSafeInteger(toRevision) || toRevision < 1)
    return rejected(`v${toRevision} is not a revision`);
  const { branches, tags } = indexRefs(refs);
  const fromTag = formatRevisionTag({ package: pkg, revision: toRevision });
  const fromSha = tags.get(fromTag);
  if (!fromSha) return rejected(`${pkg} has no published revision v${toRevision} (no tag ${fromTag})`);
  const chosen = workspace ?? freeWorkspace(pkg, `rollback-v${toRevision}`, branches.keys());
  const problem = workspaceProblem(chosen);
  if (problem) return rejected(problem);
  const branch = formatDraftBranch({ package: pkg, workspace: chosen });
  if (branches.has(branch)) return rejected(`the draft ${branch} already exists; choose another workspace`);
  const clash = refConflict(branch, branches.keys());
  if (clash) return rejected(`the draft ${branch} cannot be created next to the branch ${clash}`);
  return parsed({ package: pkg, toRevision, fromTag, fromSha, workspace: chosen, branch });
}

/** `base`, or `base-2`, `base-3`, … : the first workspace of `pkg` with no draft branch yet. */
export function freeWorkspace(pkg: string, base: string, branches: Iterable<string>): string {
  const taken = new Set(branches);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!taken.has(formatDraftBranch({ package: pkg, workspace: candidate }))) return candidate;
  }
}
