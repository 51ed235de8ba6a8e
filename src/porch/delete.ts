import { withdrawFromCatalog } from "../jobs/catalog/withdraw.js";
import { markDeleted, unmarkDeleted } from "../jobs/publish/deleted-mark.js";
import type { PackageRevision } from "../lifecycle/index.js";
import { formatDeletionBranch } from "../lifecycle/revision-deletion.js";
import { approveAndPublish, type CheckWait } from "./approve.js";
import { PorchError, revisionConflict } from "./errors.js";
import { branchOf, nameOf } from "./names.js";
import type { RepoState, Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * Deletes a revision as Porch does: a Draft or Proposed one with its branch (its pull request closed), a
 * DeletionProposed one by carrying the deletion out (publish's rules, as approve); a Published one is
 * refused (forbidden): it is proposed for deletion first. `name` is the revision as the caller named it;
 * `wait`, how long to wait for checks, is asked only when a deletion is carried out.
 */
export async function deleteRevision(
  env: OpEnv,
  {
    repo,
    rev,
    state,
    name,
    wait,
  }: { repo: Repository; rev: PackageRevision; state: RepoState; name: string; wait?: () => CheckWait },
): Promise<{ name: string }> {
  const branch = branchOf(rev);
  // Porch's own deletion proposal (its deletionProposed/… branch, no pull request): carried out here
  if (rev.lifecycle === "DeletionProposed" && rev.pullRequest === undefined && rev.revision > 0)
    return { name: await deletePorchProposed(repo, rev, state, env) };
  // As porchctl: deleting a DeletionProposed revision carries the deletion out (approve does too).
  if (rev.lifecycle === "DeletionProposed" && rev.pullRequest !== undefined) {
    const step = env.progress.step(`Deleting ${rev.package} (#${rev.pullRequest})`);
    try {
      await approveAndPublish(repo, rev.pullRequest, wait?.());
    } catch (e) {
      step.fail();
      throw e;
    }
    step.done();
    return { name: nameOf(repo, rev) };
  }
  if (rev.lifecycle === "Published" || !branch) {
    throw new PorchError(
      "forbidden",
      publishedDeletion(name),
      undefined,
      `with porchlight: run \`porchlight rpkg propose-delete ${name} --repository ${repo.full}\`, then \`porchlight rpkg del\` (or \`rpkg approve\`) the DeletionProposed revision`,
    );
  }
  const step = env.progress.step(`Deleting ${branch}`);
  // only while the branch is where it was read: of two deletions at once, exactly one deletes
  const deleted = await repo.conn.port.deleteRefIf(`refs/heads/${branch}`, rev.sha);
  if (deleted !== "deleted") {
    step.fail(deleted === "gone" ? "deleted by another request" : "changed by another request");
    throw revisionConflict(
      repo.namespace,
      nameOf(repo, rev),
      `another request ${deleted === "gone" ? "deleted" : "pushed to"} ${branch} in ${repo.full} at the same moment; see where it is with \`porchlight rpkg get --repository ${repo.full}\``,
    );
  }
  if (rev.pullRequest !== undefined) await repo.conn.port.updatePull(rev.pullRequest, { state: "closed" });
  step.done();
  return { name: nameOf(repo, rev) };
}

/**
 * Deletes a published revision Porch proposed for deletion itself (branch `deletionProposed/<pkg>/<ws>`,
 * no pull request to review), as Porch's delete does: its tag, only while it points at the commit read
 * (of two deletions at once exactly one deletes), then Porch's branch; the pull request that published it,
 * if porchlight did, labelled deleted first (jobs/publish/deleted-mark.ts).
 */
async function deletePorchProposed(
  repo: Repository,
  rev: PackageRevision,
  state: RepoState,
  env: OpEnv,
): Promise<string> {
  const step = env.progress.step(`Deleting ${rev.ref}`);
  // the record first, as the bot's deletion writes it: the sweep never publishes the merge again
  const marked = await markDeleted(repo.conn.port, rev.sha);
  const deleted = await repo.conn.port.deleteRefIf(rev.ref, rev.sha);
  if (deleted === "moved") await unmarkDeleted(repo.conn.port, marked);
  if (deleted !== "deleted") {
    step.fail(deleted === "gone" ? "deleted by another request" : "moved");
    throw revisionConflict(
      repo.namespace,
      nameOf(repo, rev),
      `another request ${deleted === "gone" ? "deleted" : "moved"} ${rev.ref} in ${repo.full} at the same moment`,
    );
  }
  // the catalog stops offering it, as the bot's deletion does (a channel it headed moves back); the bot's
  // sweep re-plans its followers, the command line having no queue
  await withdrawFromCatalog(repo.conn.port, {
    package: repo.packageDir(rev.package),
    revision: `v${rev.revision}`,
    reason: `deleted with porchlight rpkg del of ${nameOf(repo, rev)}`,
    author: await repo.author(),
  });
  const proposal = formatDeletionBranch({ package: repo.packageDir(rev.package), workspace: rev.workspace });
  const at = state.refs.find((r) => r.ref === `refs/heads/${proposal}`);
  if (at) await repo.conn.port.deleteRefIf(at.ref, at.sha);
  step.done();
  return nameOf(repo, rev);
}

/** Porch's refusal to delete a published revision (`name`) that was not proposed for deletion. */
export function publishedDeletion(name: string): string {
  return `packagerevisions.porch.kpt.dev "${name}" is forbidden: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion`;
}
