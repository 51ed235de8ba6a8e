import { proposeRevisionDeletion } from "../jobs/publish/propose-revision-deletion.js";
import { formatRevisionTag, type PackageRevision, planDeletionProposal } from "../lifecycle/index.js";
import { baseSha } from "./drafts.js";
import { PorchError, revisionConflict } from "./errors.js";
import { nameOf } from "./names.js";
import { type RepoState, type Repository, toPullInfo } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * Proposes deleting a published revision (Published → DeletionProposed), as Porch does: the package on
 * the base branch by a pull request removing its directory, a tagged revision by one naming its tag.
 * A revision proposed for deletion already is answered so (`already`), not refused, as porchctl answers it.
 */
export async function proposeDelete(
  env: OpEnv,
  { repo, rev, state, name }: { repo: Repository; rev: PackageRevision; state: RepoState; name: string },
): Promise<{ name: string; already: boolean }> {
  if (rev.lifecycle === "DeletionProposed") return { name: nameOf(repo, rev), already: true };
  if (rev.lifecycle !== "Published") {
    throw new PorchError(
      "bad-request",
      `can only propose published packages for deletion; package ${name} is not published`,
      `${name} is ${rev.lifecycle}${rev.lifecycle === "Draft" || rev.lifecycle === "Proposed" ? `; delete it with \`porchlight rpkg del ${name}\`` : ""}`,
    );
  }
  if (rev.revision === -1) await proposeRemoval(repo, rev, state, env);
  else await proposeTagDeletion(repo, rev, env);
  return { name: nameOf(repo, rev), already: false };
}

/**
 * The `.<branch>` revision: a pull request whose one commit removes the package's directory from the
 * base branch (its published revisions, each a tag, stay).
 */
async function proposeRemoval(
  repo: Repository,
  rev: PackageRevision,
  state: RepoState,
  env: OpEnv,
): Promise<void> {
  const dir = repo.packageDir(rev.package);
  const plan = planDeletionProposal({
    package: dir,
    refs: state.refs,
    pullRequests: state.pulls.map((p) => toPullInfo(repo.full, p)),
    // listed as `.<branch>`, it is on the base branch, published revisions or none
    onBaseBranch: true,
  });
  if (plan.kind === "refuse") throw new PorchError("bad-request", plan.reason);
  const step = env.progress.step(`Proposing the removal of ${rev.package} from ${repo.baseBranch}`);
  const pushed = await repo.conn.port.commitTree({
    branch: plan.branch,
    parent: baseSha(repo, state),
    dir,
    tree: new Map(),
    message: `Delete package ${rev.package} from ${repo.baseBranch}`,
    author: await repo.author(),
    exclusive: true,
  });
  if (!pushed.ok) {
    step.fail();
    if (pushed.reason === "unchanged")
      throw new PorchError(
        "bad-request",
        `${rev.package} is already gone from ${repo.baseBranch} in ${repo.full}; nothing to delete`,
      );
    throw raced(repo, rev, plan.branch);
  }
  const pr = await repo.conn.port.createPull({
    head: plan.branch,
    base: repo.baseBranch,
    title: plan.title,
    body: `Proposes removing package \`${rev.package}\` from \`${repo.baseBranch}\` (its \`.${repo.baseBranch}\` revision); its published revisions, each a tag, stay. Approve to remove it; \`/reject\` keeps it.`,
  });
  await repo.conn.port.addLabels(pr.number, [plan.label]);
  step.done(`#${pr.number}`);
}

/**
 * A published revision: branch `deletionProposed/<package>/<ws>`, one empty commit on the tagged commit,
 * and a pull request from it that names the tag (jobs/publish/propose-revision-deletion.ts, as
 * `/propose-delete v2` makes it). Approved, the tag goes.
 */
async function proposeTagDeletion(repo: Repository, rev: PackageRevision, env: OpEnv): Promise<void> {
  const dir = repo.packageDir(rev.package);
  const step = env.progress.step(
    `Proposing the deletion of ${formatRevisionTag({ package: dir, revision: rev.revision })}`,
  );
  const proposed = await proposeRevisionDeletion(repo.conn.port, {
    package: dir,
    workspace: rev.workspace,
    revision: rev.revision,
    commit: rev.sha,
    baseBranch: repo.baseBranch,
    author: await repo.author(),
  });
  if (proposed.kind === "raced") {
    step.fail();
    throw raced(repo, rev, proposed.branch);
  }
  step.done(`#${proposed.pull.number}`);
}

/** Another request proposed the same deletion at the same moment: it pushed the branch first. */
function raced(repo: Repository, rev: PackageRevision, branch: string): Error {
  return revisionConflict(
    repo.namespace,
    nameOf(repo, rev),
    `another request pushed ${branch} in ${repo.full} at the same moment; see it with \`porchlight rpkg get --repository ${repo.full}\``,
  );
}
