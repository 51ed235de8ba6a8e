import { proposeRollback } from "../../jobs/rollback/index.js";
import { PorchError } from "../../porch/errors.js";
import { jobContext } from "../../porch/job-context.js";
import { nameOf } from "../../porch/names.js";
import { UsageError } from "../io.js";
import { openRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg rollback PACKAGE_REV_NAME --repository=OWNER/REPO

Roll a package back to a published revision: a new draft (branch drafts/PACKAGE/rollback-vN) whose files
are that revision's, proposed for review. Approving it publishes them as the package's next revision,
which the catalog and fan-out treat as any new revision; no published revision is rewritten. Name the
revision to go back to as \`rpkg get\` prints it (blueprints.basens.v2) or by its tag (basens/v2).
Asked again, it finds the draft and proposal it made rather than opening another.
`;

export const rollbackVerb: Verb = {
  name: "rollback",
  summary: "Propose a new revision with an earlier published revision's content.",
  usage: USAGE,
  flags: {},
  async run(args, env) {
    const [source, ...extra] = args.positional;
    if (!source || extra.length > 0)
      throw new UsageError(
        `rpkg rollback takes one PACKAGE_REV_NAME, the revision to go back to\n\n${USAGE}`,
      );
    const { repo, rev } = await openRevision("rollback", args, env, source);
    if (rev.revision === -1)
      throw new PorchError(
        "bad-request",
        `${source} is the package as it is on ${repo.baseBranch}, not a published revision: a rollback goes back to one of its numbered revisions (\`porchlight rpkg get --name ${rev.package}\` lists them)`,
      );
    if (rev.revision === 0 || (rev.lifecycle !== "Published" && rev.lifecycle !== "DeletionProposed")) {
      throw new PorchError(
        "bad-request",
        `${source} is ${rev.lifecycle}: a rollback goes back to a published revision; name one as \`porchlight rpkg get --repository ${repo.full}\` lists it`,
      );
    }
    const step = env.progress.step(`Proposing ${rev.package} with the content of v${rev.revision}`);
    const ctx = await jobContext(repo);
    const out = await proposeRollback(ctx, {
      package: repo.packageDir(rev.package),
      toRevision: rev.revision,
      requestedBy: ctx.bot.login,
    });
    if (out.kind === "refused") {
      step.fail();
      throw new PorchError("bad-request", out.reason);
    }
    step.done(`#${out.pull}`);
    const name = nameOf(repo, { package: rev.package, workspace: out.branch.split("/").at(-1) as string });
    env.io.stdout(`${name} ${out.existing ? "already proposed" : "proposed"} (#${out.pull})\n`);
    return 0;
  },
};
