import { propose } from "../../porch/propose.js";
import { requireReady } from "../../porch/readiness.js";
import { forEachRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg propose PACKAGE_REV_NAME... --repository=OWNER/REPO

Propose draft revisions for publishing: each draft branch gets a pull request into the base branch.
Approve it with a review, \`/approve\`, or \`porchlight rpkg approve\`.
`;

export const proposeVerb: Verb = {
  name: "propose",
  summary: "Propose drafts for publishing (open their pull requests).",
  usage: USAGE,
  flags: {},
  run: (args, env) =>
    forEachRevision("propose", USAGE, args, env, async (repo, rev, _state, name) => {
      // porchctl's own check, before it asks the server (which, as Porch's, refuses no gate)
      if (rev.lifecycle === "Draft") await requireReady(repo, rev, name);
      return `${(await propose(env, { repo, rev, name })).name} proposed`;
    }),
};
