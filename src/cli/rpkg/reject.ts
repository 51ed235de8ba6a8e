import { rejectProposal } from "../../porch/reject.js";
import { forEachProposal, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg reject PACKAGE_REV_NAME... --repository=OWNER/REPO

Reject proposals, as \`/reject\` does: a Proposed revision returns to Draft (its pull request is closed,
its branch stays); a DeletionProposed revision stays Published (the deletion pull request is closed and
its branch removed).
`;

export const rejectVerb: Verb = {
  name: "reject",
  summary: "Reject a proposal to publish or delete (back to Draft, or stays Published).",
  usage: USAGE,
  flags: {},
  run: (args, env) =>
    forEachProposal(
      "reject",
      USAGE,
      args,
      env,
      (name, lifecycle) => `cannot reject ${name} with lifecycle '${lifecycle}'`,
      async (repo, rev) => {
        const done = await rejectProposal(env, { repo, rev });
        return `${done.name} no longer proposed for ${done.proposedFor}`;
      },
    ),
};
