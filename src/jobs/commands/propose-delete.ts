import { parseDraftBranch } from "../../lifecycle/draft-branch.js";
import { planDeletionProposal } from "../../lifecycle/proposals.js";
import type { VerbHandler } from "./types.js";

/**
 * `/propose-delete` on a package's proposal (open or published): open a pull request, labelled
 * `porchlight/deletion`, whose one commit removes the package directory. Approving it deletes the
 * package; its tags stay.
 */
export const proposeDelete: VerbHandler = async (ctx, { pr }) => {
  const draft = parseDraftBranch(pr.headRef);
  if (!draft.ok) {
    return {
      kind: "refused",
      reason: `This pull request names no package: \`${pr.headRef}\` is not a draft branch.`,
    };
  }
  const pkg = draft.value.package;
  const [refs, pulls] = await Promise.all([ctx.port.listRefs(), ctx.port.listOpenPulls()]);
  const plan = planDeletionProposal({ package: pkg, refs, pullRequests: pulls });
  if (plan.kind === "refuse") return { kind: "refused", reason: plan.reason };
  const base = await ctx.port.readTree(`refs/heads/${ctx.baseBranch}`, pkg);
  if (base.tree.size === 0) {
    return {
      kind: "refused",
      reason: `\`${pkg}\` is not on \`${ctx.baseBranch}\` any more; nothing to delete.`,
    };
  }
  const pushed = await ctx.port.commitTree({
    branch: plan.branch,
    parent: base.sha,
    dir: pkg,
    tree: new Map(),
    message: `Delete package ${pkg}\n\nProposed with /propose-delete on #${pr.number}.\n`,
    author: ctx.bot.author,
  });
  if (!pushed.ok) {
    return {
      kind: "refused",
      reason: `Could not create the branch \`${plan.branch}\` (${pushed.reason}); try again.`,
    };
  }
  const proposal = await ctx.port.createPull({
    head: plan.branch,
    base: ctx.baseBranch,
    title: plan.title,
    body: `Deletes the package \`${pkg}\`: its latest published revision v${plan.revision} becomes DeletionProposed. Approve to delete it (its tags stay), or close this pull request to keep it.\n\nProposed with \`/propose-delete\` on #${pr.number}.`,
  });
  await ctx.port.addLabels(proposal.number, [plan.label]);
  return { kind: "deletion-proposed", package: pkg, revision: plan.revision };
};
