import type { PullRequest, RepoFiles } from "../../github/port.js";
import { formatDraftBranch } from "../../lifecycle/draft-branch.js";
import { publishedWorkspace } from "../../lifecycle/kpt-trailer.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { planDeletionProposal } from "../../lifecycle/proposals.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { formatDeletionBranch } from "../../lifecycle/revision-deletion.js";
import { formatRevisionTag } from "../../lifecycle/revision-tag.js";
import type { JobContext } from "../context.js";
import { proposeRevisionDeletion } from "../publish/propose-revision-deletion.js";
import type { HandlerResult, VerbHandler } from "./types.js";

/**
 * `/propose-delete v2` (or `basens/v2`): that published revision alone, as `rpkg propose-delete` does
 * (revisionDeletion). `/propose-delete` on a package's proposal (open or published): open a pull
 * request, labelled `porchlight/deletion`, whose one commit removes the package directory. Approving it
 * deletes the package; its tags stay. A run after a crash picks up what the earlier one left: the
 * deletion branch it pushed (not a second `delete-v<N>-2`), and the pull request it opened (labelled now).
 */
export const proposeDelete: VerbHandler<"propose-delete"> = async (ctx, { pr, args }) => {
  if (args.revision !== undefined) return revisionDeletion(ctx, pr, args.package, args.revision);
  const draft = parsePackageBranch(pr.headRef);
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
  const body = `Deletes the package \`${pkg}\`: its latest published revision v${plan.revision} becomes DeletionProposed. Approve to delete it (its tags stay), or close this pull request to keep it.\n\nProposed with \`/propose-delete\` on #${pr.number}.`;
  const leftover = await leftoverDeletionBranch(ctx.port, pkg, plan.revision, refs);
  const branch = leftover ?? plan.branch;
  if (!leftover) {
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
  }
  const proposal =
    openPullFrom(pulls, branch) ??
    (await ctx.port.createPull({ head: branch, base: ctx.baseBranch, title: plan.title, body }));
  await ctx.port.addLabels(proposal.number, [plan.label]);
  return { kind: "deletion-proposed", package: pkg, revision: plan.revision };
};

/**
 * A `drafts/<pkg>/delete-v<N>[-k]` branch an earlier run pushed: its commit removes the package (the
 * directory is absent there). A user's draft that happens to carry the name keeps the package, so it
 * is never taken for one.
 */
async function leftoverDeletionBranch(
  port: RepoFiles,
  pkg: string,
  revision: number,
  refs: readonly RefInfo[],
): Promise<string | undefined> {
  const base = formatDraftBranch({ package: pkg, workspace: `delete-v${revision}` });
  const candidates = [...indexRefs(refs).branches.keys()]
    .filter((b) => b === base || (b.startsWith(`${base}-`) && /^[0-9]+$/.test(b.slice(base.length + 1))))
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  for (const branch of candidates) {
    if ((await port.readTree(`refs/heads/${branch}`, pkg)).tree.size === 0) return branch;
  }
  return undefined;
}

function openPullFrom(pulls: readonly PullRequest[], branch: string): PullRequest | undefined {
  return pulls.find((p) => p.headRef === branch && p.state === "open");
}

/**
 * The deletion of one published revision, `<package>/v<revision>` (the pull request's package unless
 * named): Porch's `deletionProposed/<package>/<ws>` branch and a pull request from it that changes no
 * file (propose-revision-deletion.ts). Asked again while it is open, the answer names it; a branch left
 * without its pull request (a crash, or Porch's own proposal) gets one.
 */
async function revisionDeletion(
  ctx: JobContext,
  pr: PullRequest,
  named: string | undefined,
  revision: number,
): Promise<HandlerResult> {
  const draft = parsePackageBranch(pr.headRef);
  const pkg = named ?? (draft.ok ? draft.value.package : undefined);
  if (pkg === undefined) {
    return {
      kind: "refused",
      reason: `This pull request names no package (\`${pr.headRef}\` is not a draft branch): name the revision by its tag, like \`/propose-delete basens/v${revision}\`.`,
    };
  }
  const tag = formatRevisionTag({ package: pkg, revision });
  const [refs, pulls] = await Promise.all([ctx.port.listRefs(), ctx.port.listOpenPulls()]);
  const { tags, branches } = indexRefs(refs);
  const commit = tags.get(tag);
  if (commit === undefined) {
    const published = [...tags.keys()].filter((t) => t.startsWith(`${pkg}/v`));
    return {
      kind: "refused",
      reason: `\`${tag}\` is not a published revision of this repository (no such tag)${published.length ? `; ${pkg} has ${published.map((t) => `\`${t}\``).join(", ")}` : ""}.`,
    };
  }
  const message = (await ctx.port.commitMessages([commit])).get(commit) ?? "";
  const workspace = publishedWorkspace(message, pkg) ?? `v${revision}`;
  const branch = formatDeletionBranch({ package: pkg, workspace });
  const open = openPullFrom(pulls, branch);
  if (open) return { kind: "revision-deletion-proposed", tag, pull: open.number, existing: true };
  const proposed = await proposeRevisionDeletion(ctx.port, {
    package: pkg,
    workspace,
    revision,
    commit,
    baseBranch: ctx.baseBranch,
    author: ctx.bot.author,
    branchExists: branches.has(branch),
    note: `Proposed with \`/propose-delete\` on #${pr.number}.`,
  });
  if (proposed.kind === "raced")
    return {
      kind: "refused",
      reason: `Another request pushed \`${branch}\` at the same moment; its pull request proposes this deletion.`,
    };
  return { kind: "revision-deletion-proposed", tag, pull: proposed.pull.number, existing: false };
}
