import { approveAndPublish, checkWait } from "./approve.js";
import { RpkgError, revisionConflict } from "./errors.js";
import { branchOf, nameOf } from "./names.js";
import { forEachRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg del PACKAGE_REV_NAME... --repository=OWNER/REPO [--timeout 5m]

Delete package revisions (alias: delete). A Draft or Proposed revision goes away with its branch (its
pull request is closed). A Published revision is deleted through a deletion proposal: run
\`rpkg propose-delete\`, then \`rpkg del\` (or \`rpkg approve\`) on the DeletionProposed revision, with
the approvals of any publish: that revision alone goes (a published revision's tag; for the .main
revision, the package on the base branch, merged once its checks are green, which it waits for).
`;

export const delVerb: Verb = {
  name: "del",
  aliases: ["delete"],
  summary: "Delete draft or proposed revisions (published ones: propose-delete first).",
  usage: USAGE,
  flags: { timeout: "value" },
  run: (args, env) =>
    forEachRevision("del", USAGE, args, env, async (repo, rev, _state, name) => {
      const branch = branchOf(rev);
      // As porchctl: deleting a DeletionProposed revision carries the deletion out (approve does too).
      if (rev.lifecycle === "DeletionProposed" && rev.pullRequest !== undefined) {
        const step = env.progress.step(`Deleting ${rev.package} (#${rev.pullRequest})`);
        try {
          await approveAndPublish(repo, rev.pullRequest, checkWait(args.values.get("timeout")));
        } catch (e) {
          step.fail();
          throw e;
        }
        step.done();
        return `${nameOf(repo, rev)} deleted`;
      }
      if (rev.lifecycle === "Published" || !branch) {
        throw new RpkgError(
          `packagerevisions.porch.kpt.dev "${name}" is forbidden: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion`,
          `run \`porchlight rpkg propose-delete ${name} --repository ${repo.full}\`, then approve the deletion`,
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
      if (rev.pullRequest !== undefined)
        await repo.conn.port.updatePull(rev.pullRequest, { state: "closed" });
      step.done();
      return `${nameOf(repo, rev)} deleted`;
    }),
};
