import { proposeRollback } from "../jobs/rollback/index.js";
import { PorchError } from "./errors.js";
import { jobContext } from "./job-context.js";
import { nameOf } from "./names.js";
import { revisionOf } from "./open.js";
import type { Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * Rolls a package back to a published revision as `/rollback` does (the same job): a new draft
 * (drafts/PACKAGE/rollback-vN) whose files are that revision's, proposed; approving it publishes them as
 * the package's next revision. Asked again, it finds the draft and proposal it made. `name` is the
 * revision to go back to as the caller named it. Answers the new revision's name, its pull request and
 * whether it was there already.
 */
export async function rollback(
  env: OpEnv,
  args: { repository: string | Repository; name: string },
): Promise<{ name: string; pull: number; existing: boolean }> {
  const { name: source } = args;
  const { repo, rev } = await revisionOf(env, args.repository, "rollback", source);
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
  const workspace = out.branch.split("/").at(-1) as string;
  return { name: nameOf(repo, { package: rev.package, workspace }), pull: out.pull, existing: out.existing };
}
