import { pullRefusalOf } from "../github/errors.js";
import { type PackageRevision, transitionProblem } from "../lifecycle/index.js";
import { PorchError, revisionConflict } from "./errors.js";
import { branchOf, nameOf } from "./names.js";
import type { Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/** The pull request that proposes a draft, titled and described for its reviewers. */
function proposalText(name: string, pkg: string, workspace: string): { title: string; body: string } {
  return {
    title: `Propose ${pkg} (${workspace})`,
    body: [
      `Proposes the package revision \`${name}\`: package \`${pkg}\`, workspace \`${workspace}\`.`,
      "",
      "Approve (a review, or `/approve`) to publish it as the next revision; `/reject` returns it to draft.",
    ].join("\n"),
  };
}

/**
 * Proposes a draft (Draft → Proposed): a pull request from its branch into the base branch (readiness
 * gates are the client's to hold to, as with Porch: readiness.ts requireReady). `name` is the revision as the caller named it (their
 * words in a refusal).
 */
export async function propose(
  env: OpEnv,
  { repo, rev, name }: { repo: Repository; rev: PackageRevision; name: string },
): Promise<{ name: string; pull: number }> {
  const problem = transitionProblem(rev.lifecycle, "Proposed");
  const branch = branchOf(rev);
  if (problem || !branch)
    throw new PorchError("bad-request", `cannot propose ${name}: ${problem ?? "it is published"}`);
  if (rev.pullRequest !== undefined) {
    throw new PorchError(
      "bad-request",
      `${name} already has pull request #${rev.pullRequest}, opened as a draft pull request; mark it "ready for review" on GitHub to propose it`,
    );
  }
  const step = env.progress.step(`Opening a pull request from ${branch} into ${repo.baseBranch}`);
  const text = proposalText(nameOf(repo, rev), rev.package, rev.workspace);
  let pr: Awaited<ReturnType<typeof repo.conn.port.createPull>>;
  try {
    pr = await repo.conn.port.createPull({ head: branch, base: repo.baseBranch, ...text });
  } catch (e) {
    const refusal = pullRefusalOf(e);
    // GitHub opens one pull request a branch: another request opened it at the same moment
    if (refusal === "exists") {
      step.fail("proposed by another request");
      throw revisionConflict(
        repo.namespace,
        nameOf(repo, rev),
        `another request opened the pull request from ${branch} at the same moment; see it with \`porchlight rpkg get ${name} --repository ${repo.full}\``,
      );
    }
    // GitHub opens no pull request for a branch with nothing new: an unedited copy, say.
    if (refusal !== "no-commits") throw e;
    step.fail("nothing to propose");
    throw new PorchError(
      "bad-request",
      `${name} has no changes to propose: its branch ${branch} holds nothing that ${repo.baseBranch} does not have (a copy that was not edited yet). Change it first (\`porchlight rpkg pull ${name} DIR\`, edit, \`porchlight rpkg push ${name} DIR\`), or delete it with \`porchlight rpkg del ${name}\``,
    );
  }
  step.done(`#${pr.number}`);
  return { name: nameOf(repo, rev), pull: pr.number };
}
