import { deleteRevision } from "../../porch/delete.js";
import { checkWait } from "./approve.js";
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
  summary: "Delete draft or proposed revisions (published ones: propose-delete first).",
  usage: USAGE,
  flags: { timeout: "value" },
  run: (args, env) =>
    forEachRevision("del", USAGE, args, env, async (repo, rev, state, name) => {
      const wait = () => checkWait(args.values.get("timeout"));
      return `${(await deleteRevision(env, { repo, rev, state, name, wait })).name} deleted`;
    }),
};
