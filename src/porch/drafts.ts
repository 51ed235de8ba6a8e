import type { FileTree } from "../kpt/tree.js";
import {
  formatDraftBranch,
  indexRefs,
  type PackageRevision,
  packagePathProblem,
  refConflict,
  workspaceProblem,
} from "../lifecycle/index.js";
import { annotationForBranch, type PorchTask } from "../lifecycle/kpt-trailer.js";
import { renderedFrom } from "../lifecycle/render-commit.js";
import { creationConflict, PorchError } from "./errors.js";
import type { RepoState, Repository } from "./repository.js";

/** The commit the base branch points at; a repository without it cannot hold drafts yet. */
export function baseSha(repo: Repository, state: RepoState): string {
  const sha = indexRefs(state.refs).branches.get(repo.baseBranch);
  if (!sha) {
    throw new PorchError(
      "bad-request",
      `${repo.full} has no branch ${repo.baseBranch} to start drafts from; push a first commit to it (or set baseBranch in .github/porchlight.yml)`,
    );
  }
  return sha;
}

/** Checks a new draft's name: a valid package path and workspace, and a branch that can be created. */
export function newDraftBranch(repo: Repository, state: RepoState, pkg: string, workspace: string): string {
  const problem = packagePathProblem(pkg) ?? workspaceProblem(workspace);
  if (problem)
    throw new PorchError("bad-request", `cannot create a revision of ${pkg} in ${repo.full}: ${problem}`);
  const branch = formatDraftBranch({ package: repo.packageDir(pkg), workspace });
  const branches = [...indexRefs(state.refs).branches.keys()];
  if (branches.includes(branch)) {
    throw new PorchError(
      "already-exists",
      `${pkg} already has a revision with workspace ${workspace} in ${repo.full} (branch ${branch}); choose another --workspace`,
    );
  }
  const clash = refConflict(branch, branches);
  if (clash) {
    throw new PorchError(
      "bad-request",
      `the draft branch ${branch} cannot be created next to the branch ${clash} in ${repo.full} (git keeps branches as paths); choose another --workspace`,
    );
  }
  return branch;
}

/** Creates draft branch `branch` on top of the base branch, in a commit with `tree` as the package's files. */
export async function createDraft(
  repo: Repository,
  state: RepoState,
  input: { branch: string; pkg: string; tree: FileTree; message: string; task?: PorchTask },
): Promise<string> {
  const kpt = annotationForBranch(input.branch);
  const parent = baseSha(repo, state);
  const result = await repo.conn.port.commitTree({
    branch: input.branch,
    parent,
    dir: repo.packageDir(input.pkg),
    tree: input.tree,
    message: input.message,
    author: await repo.author(),
    // a draft has its own first commit, carrying Porch's trailer, even when it changes nothing yet (an
    // unedited copy): it can be proposed, as Porch proposes it
    allowEmpty: true,
    // the task that began the revision, in its first commit's trailer, where Porch reads its spec.tasks
    ...(kpt && input.task ? { kpt: { ...kpt, task: input.task } } : {}),
    // of two requests creating it at once (even with the very same commit), exactly one does
    exclusive: true,
  });
  if (result.ok) {
    repo.madeDraft(input.branch, result.sha);
    return result.sha;
  }
  throw creationConflict(
    {
      namespace: repo.namespace,
      repository: repo.name,
      package: input.pkg,
      workspace: input.branch.slice(input.branch.lastIndexOf("/") + 1),
    },
    `another request created ${input.branch} in ${repo.full} at the same moment; see it with \`porchlight rpkg get --repository ${repo.full} --name ${input.pkg}\``,
  );
}

/** How many of the bot's render commits in a row a write looks through (a render settles in one). */
const RENDERS_LOOKED_THROUGH = 4;

/**
 * Whether `to` is `from` rendered by the bot: a chain of its render commits (each naming the commit it
 * rendered, its parent) back to `from`. A draft the caller read at `from` that moved only so is the same
 * revision as they read it — the render of their own write, not another writer's change — so a write
 * goes on on top of it rather than answering a conflict (as Porch, which renders inside the write).
 */
export async function renderedSince(repo: Repository, from: string, to: string): Promise<boolean> {
  let at = to;
  for (let i = 0; i < RENDERS_LOOKED_THROUGH && at !== from; i++) {
    const message = (await repo.conn.port.commitMessages([at])).get(at);
    const parent = message === undefined ? undefined : renderedFrom(message);
    if (parent === undefined) return false;
    at = parent;
  }
  return at === from;
}

/**
 * Whether revision `rev` (as the engine reads it now) is still the one a caller read at `commit`: the
 * same commit, the bot's render of it (renderedSince), or — for a branch's package (`.main`, revision
 * -1), which names its package's last change on the branch rather than the branch's head — that last
 * change: a publish of another package moves the branch, not this revision.
 */
export async function stillAsRead(repo: Repository, rev: PackageRevision, commit: string): Promise<boolean> {
  if (rev.sha === commit || (await renderedSince(repo, commit, rev.sha))) return true;
  if (rev.revision !== -1) return false;
  const dir = repo.packageDir(rev.package);
  return (await repo.conn.port.lastChanges(rev.sha, [dir])).get(dir) === commit;
}
