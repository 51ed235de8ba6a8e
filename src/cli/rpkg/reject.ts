import { reject } from "../../jobs/commands/reject.js";
import { PorchError } from "../../porch/errors.js";
import { nameOf } from "../../porch/names.js";
import { jobContext } from "./job-context.js";
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
        const pr = await repo.conn.port.getPull(rev.pullRequest);
        const login = (await repo.whoami())?.login ?? "you";
        const ctx = await jobContext(repo);
        const step = env.progress.step(`Closing pull request #${pr.number}`);
        const result = await reject(ctx, {
          pr,
          actor: { login, permission: repo.conn.info.permission },
          args: { verb: "reject" },
          commentId: 0,
        });
        if (result.kind === "refused") {
          step.fail();
          throw new PorchError("bad-request", result.reason);
        }
        step.done();
        const what = rev.lifecycle === "DeletionProposed" ? "deletion" : "approval";
        return `${nameOf(repo, rev)} no longer proposed for ${what}`;
      },
    ),
};
