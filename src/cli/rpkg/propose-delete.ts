import { DELETION_LABEL, planDeletionProposal } from "../../lifecycle/index.js";
import { baseSha } from "./drafts.js";
import { RpkgError } from "./errors.js";
import { nameOf } from "./names.js";
import { toPullInfo } from "./repository.js";
import { forEachRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg propose-delete PACKAGE_REV_NAME... --repository=OWNER/REPO

Propose deleting published packages: a pull request (label ${DELETION_LABEL}) that removes the
package's directory from the base branch. Approving it deletes the package; rejecting it keeps it.
`;

export const proposeDeleteVerb: Verb = {
  name: "propose-delete",
  summary: "Propose deleting a published package (a pull request removing it).",
  usage: USAGE,
  flags: {},
  run: (args, env) =>
    forEachRevision("propose-delete", USAGE, args, env, async (repo, rev, state, name) => {
      // Asked again, as porchctl answers: a notice, not a failure.
      if (rev.lifecycle === "DeletionProposed")
        return { notice: `${nameOf(repo, rev)} is already proposed for deletion` };
      if (rev.lifecycle !== "Published") {
        throw new RpkgError(
          `can only propose published packages for deletion; package ${name} is not published`,
          `${name} is ${rev.lifecycle}${rev.lifecycle === "Draft" || rev.lifecycle === "Proposed" ? `; delete it with \`porchlight rpkg del ${name}\`` : ""}`,
        );
      }
      const plan = planDeletionProposal({
        package: repo.packageDir(rev.package),
        refs: state.refs,
        pullRequests: state.pulls.map((p) => toPullInfo(repo.full, p)),
      });
      if (plan.kind === "refuse") throw new RpkgError(plan.reason);
      const step = env.progress.step(`Proposing the deletion of ${rev.package}`);
      const pushed = await repo.conn.port.commitTree({
        branch: plan.branch,
        parent: baseSha(repo, state),
        dir: repo.packageDir(rev.package),
        tree: new Map(),
        message: `Delete package ${rev.package}`,
        author: await repo.author(),
      });
      if (!pushed.ok) {
        step.fail();
        throw new RpkgError(
          pushed.reason === "unchanged"
            ? `${rev.package} is already gone from ${repo.baseBranch} in ${repo.full}; nothing to delete`
            : `someone created ${plan.branch} in ${repo.full} at the same time; run the command again`,
        );
      }
      const pr = await repo.conn.port.createPull({
        head: plan.branch,
        base: repo.baseBranch,
        title: plan.title,
        body: `Proposes deleting package \`${rev.package}\` (latest revision v${plan.revision}). Approve to delete it; \`/reject\` keeps it.`,
      });
      await repo.conn.port.addLabels(pr.number, [plan.label]);
      step.done(`#${pr.number}`);
      return `${nameOf(repo, rev)} proposed for deletion`;
    }),
};
