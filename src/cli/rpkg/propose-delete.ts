import { proposeRevisionDeletion } from "../../jobs/publish/propose-revision-deletion.js";
import {
  DELETION_LABEL,
  formatRevisionTag,
  type PackageRevision,
  planDeletionProposal,
} from "../../lifecycle/index.js";
import { baseSha } from "../../porch/drafts.js";
import { PorchError, revisionConflict } from "../../porch/errors.js";
import { nameOf } from "../../porch/names.js";
import { type RepoState, type Repository, toPullInfo } from "../../porch/repository.js";
import type { RpkgEnv } from "./env.js";
import { forEachRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg propose-delete PACKAGE_REV_NAME... --repository=OWNER/REPO

Propose deleting published package revisions, each on its own, as Porch does: a pull request labelled
${DELETION_LABEL}. For a published revision (\`repo.pkg.ws\`, tag <package>/v<N>) it is a pull request
from deletionProposed/<package>/<ws> that changes no file: approving it deletes that tag and nothing
else. For the package on the base branch (\`repo.pkg.main\`) it is a pull request removing the package's
directory: approving it merges that. Rejecting either keeps the revision Published.
`;

export const proposeDeleteVerb: Verb = {
  name: "propose-delete",
  summary: "Propose deleting a published revision (a pull request, label porchlight/deletion).",
  usage: USAGE,
  flags: {},
  run: (args, env) =>
    forEachRevision("propose-delete", USAGE, args, env, async (repo, rev, state, name) => {
      // Asked again, as porchctl answers: a notice, not a failure.
      if (rev.lifecycle === "DeletionProposed")
        return { notice: `${nameOf(repo, rev)} is already proposed for deletion` };
      if (rev.lifecycle !== "Published") {
        throw new PorchError(
          "bad-request",
          `can only propose published packages for deletion; package ${name} is not published`,
          `${name} is ${rev.lifecycle}${rev.lifecycle === "Draft" || rev.lifecycle === "Proposed" ? `; delete it with \`porchlight rpkg del ${name}\`` : ""}`,
        );
      }
      if (rev.revision === -1) await proposeRemoval(repo, rev, state, env);
      else await proposeTagDeletion(repo, rev, env);
      return `${nameOf(repo, rev)} proposed for deletion`;
    }),
};

/**
 * The `.<branch>` revision: a pull request whose one commit removes the package's directory from the
 * base branch (its published revisions, each a tag, stay).
 */
async function proposeRemoval(
  repo: Repository,
  rev: PackageRevision,
  state: RepoState,
  env: RpkgEnv,
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
async function proposeTagDeletion(repo: Repository, rev: PackageRevision, env: RpkgEnv): Promise<void> {
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
