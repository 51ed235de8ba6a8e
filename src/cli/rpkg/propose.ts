import { GitHubError } from "../../github/errors.js";
import { transitionProblem } from "../../lifecycle/index.js";
import { PorchError, revisionConflict } from "../../porch/errors.js";
import { branchOf, nameOf } from "../../porch/names.js";
import { forEachRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg propose PACKAGE_REV_NAME... --repository=OWNER/REPO

Propose draft revisions for publishing: each draft branch gets a pull request into the base branch.
Approve it with a review, \`/approve\`, or \`porchlight rpkg approve\`.
`;

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

export const proposeVerb: Verb = {
  name: "propose",
  summary: "Propose drafts for publishing (open their pull requests).",
  usage: USAGE,
  flags: {},
  run: (args, env) =>
    forEachRevision("propose", USAGE, args, env, async (repo, rev, _state, name) => {
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
        // GitHub opens one pull request a branch: another request opened it at the same moment
        if (e instanceof GitHubError && e.kind === "validation" && /already exists/i.test(e.message)) {
          step.fail("proposed by another request");
          throw revisionConflict(
            repo.namespace,
            nameOf(repo, rev),
            `another request opened the pull request from ${branch} at the same moment; see it with \`porchlight rpkg get ${name} --repository ${repo.full}\``,
          );
        }
        // GitHub opens no pull request for a branch with nothing new: an unedited copy, say.
        if (!(e instanceof GitHubError) || e.kind !== "validation" || !/no commits between/i.test(e.message))
          throw e;
        step.fail("nothing to propose");
        throw new PorchError(
          "bad-request",
          `${name} has no changes to propose: its branch ${branch} holds nothing that ${repo.baseBranch} does not have (a copy that was not edited yet). Change it first (\`porchlight rpkg pull ${name} DIR\`, edit, \`porchlight rpkg push ${name} DIR\`), or delete it with \`porchlight rpkg del ${name}\``,
        );
      }
      step.done(`#${pr.number}`);
      return `${nameOf(repo, rev)} proposed`;
    }),
};
