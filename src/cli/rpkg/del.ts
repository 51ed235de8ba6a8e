import { RpkgError } from "./errors.js";
import { branchOf, nameOf } from "./names.js";
import { forEachRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg del PACKAGE_REV_NAME... --repository=OWNER/REPO

Delete package revisions. A Draft or Proposed revision goes away with its branch (its pull request is
closed). A Published revision is deleted through a deletion proposal: run \`rpkg propose-delete\`, then
\`rpkg approve\` (or \`rpkg del\`) on the DeletionProposed revision to merge it.
`;

export const delVerb: Verb = {
  name: "del",
  summary: "Delete draft or proposed revisions (published ones: propose-delete first).",
  usage: USAGE,
  flags: {},
  run: (args, env) =>
    forEachRevision("del", USAGE, args, env, async (repo, rev, _state, name) => {
      const branch = branchOf(rev);
      if (rev.lifecycle === "DeletionProposed") {
        throw new RpkgError(
          `${name} proposes deleting ${rev.package} (#${rev.pullRequest}); run \`porchlight rpkg approve ${name} --repository ${repo.full}\` to delete it`,
        );
      }
      if (rev.lifecycle === "Published" || !branch) {
        throw new RpkgError(
          `${name} is ${rev.lifecycle}: a published revision is deleted by a deletion proposal; run \`porchlight rpkg propose-delete ${name} --repository ${repo.full}\` first`,
        );
      }
      const step = env.progress.step(`Deleting ${branch}`);
      if (rev.pullRequest !== undefined)
        await repo.conn.port.updatePull(rev.pullRequest, { state: "closed" });
      await repo.conn.port.deleteBranch(branch);
      step.done();
      return `${nameOf(repo, rev)} deleted`;
    }),
};
