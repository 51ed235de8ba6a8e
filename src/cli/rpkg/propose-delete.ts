import { DELETION_LABEL } from "../../lifecycle/index.js";
import { proposeDelete } from "../../porch/propose-delete.js";
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
      const done = await proposeDelete(env, { repo, rev, state, name });
      // Asked again, as porchctl answers: a notice, not a failure.
      if (done.already) return { notice: `${done.name} is already proposed for deletion` };
      return `${done.name} proposed for deletion`;
    }),
};
