import type { PullRequest } from "../../github/port.js";
import { subtree } from "../../kpt/tree.js";
import { formatAdoptMessage } from "../../lifecycle/adopted.js";
import { formatDraftBranch } from "../../lifecycle/draft-branch.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { proposalPackages } from "../check-proposal/proposal-packages.js";
import { fromFork, type JobContext } from "../context.js";
import { renderDraft } from "../render-draft/index.js";
import type { HandlerResult, VerbHandler } from "./types.js";

/** The workspace a fork's pull request is adopted as: the same one every time, so `/adopt` again updates it. */
const adoptWorkspace = (pull: number): string => `fork-pr-${pull}`;

/**
 * `/adopt` on a fork's pull request, by a maintainer: each package it changes is copied (only the files
 * under the package directory, as bytes) onto a draft branch of this repository, `drafts/<package>/fork-pr-<n>`,
 * and proposed. From there it is a draft like any other: rendered, checked with this repository's
 * configuration, approved — except that its exec and container functions, the fork author's code, do
 * not run until a maintainer approves the proposal in a review or pushes to the draft (adopted-trust.ts):
 * it is rendered with builtins only, and the answer names the functions held back. The fork's pull request and branch are left as they are. Said again after the
 * fork changed, it pushes the new content onto the same draft.
 */
export const adopt: VerbHandler<"adopt"> = async (ctx, { pr, actor }) => {
  if (!fromFork(ctx, pr)) {
    return refused(
      `\`/adopt\` copies a fork's pull request into a draft; #${pr.number}'s branch \`${pr.headRef}\` is already in this repository.`,
    );
  }
  if (pr.state !== "open") return refused(`#${pr.number} is closed; reopen it to adopt it.`);
  const [head, base, changed, refs] = await Promise.all([
    ctx.port.readTree(pr.headSha),
    ctx.port.readTree(`refs/heads/${ctx.baseBranch}`),
    ctx.port.changedPaths(pr.baseSha, pr.headSha),
    ctx.port.listRefs(),
  ]);
  const packages = proposalPackages({
    pr: { headRef: "", labels: [] },
    changed,
    basePaths: base.tree.keys(),
    headPaths: head.tree.keys(),
    packageRoot: ctx.config.packageRoot,
  });
  if (packages.length === 0) return refused(`#${pr.number} changes no package; there is nothing to adopt.`);
  const removed = packages.filter((p) => p.deletion).map((p) => `\`${p.path}\``);
  if (removed.length > 0) {
    return refused(
      `#${pr.number} removes ${removed.join(", ")}; \`/adopt\` copies changed packages only. Say \`/propose-delete\` on the package's own proposal to delete it.`,
    );
  }
  const branches = indexRefs(refs).branches;
  const drafts: { package: string; branch: string; pull: number; heldBack?: string[] }[] = [];
  for (const p of packages) {
    const branch = formatDraftBranch({ package: p.path, workspace: adoptWorkspace(pr.number) });
    const parent = branches.get(branch) ?? base.sha;
    const pushed = await ctx.port.commitTree({
      branch,
      parent,
      dir: p.path,
      tree: subtree(head.tree, p.path),
      message: formatAdoptMessage(
        p.path,
        { repo: pr.headRepo, pull: pr.number, sha: pr.headSha },
        actor.login,
      ),
      author: ctx.bot.author,
    });
    if (!pushed.ok && pushed.reason === "non-fast-forward") {
      return refused(`The draft \`${branch}\` moved while adopting; say \`/adopt\` again.`);
    }
    // Rendered now, with builtins only: the fork's exec and container functions wait for a maintainer.
    const rendered = await renderDraft(ctx, { branch });
    const heldBack = "heldBack" in rendered && rendered.heldBack ? { heldBack: rendered.heldBack } : {};
    const pull = await ensureProposal(ctx, pr, p.path, branch);
    drafts.push({ package: p.path, branch, pull, ...heldBack });
  }
  return { kind: "adopted", drafts };
};

/** The open proposal of `branch`, or a new one naming the fork's pull request. */
async function ensureProposal(
  ctx: JobContext,
  pr: PullRequest,
  pkg: string,
  branch: string,
): Promise<number> {
  const open = (await ctx.port.listPullsFrom(branch)).find((p) => p.state === "open");
  if (open) return open.number;
  const created = await ctx.port.createPull({
    head: branch,
    base: ctx.baseBranch,
    title: `${pkg}: ${pr.title} (adopted from #${pr.number})`,
    body: `The package changes of #${pr.number} by @${pr.author} (from \`${pr.headRepo ?? "a deleted fork"}\`), copied into a draft of this repository with \`/adopt\`. Review the files here: this is what gets published.`,
  });
  return created.number;
}

function refused(reason: string): HandlerResult {
  return { kind: "refused", reason };
}
