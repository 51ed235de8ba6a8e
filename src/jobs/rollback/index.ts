import type { PullRequest } from "../../github/port.js";
import { formatDraftBranch } from "../../lifecycle/draft-branch.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { planRollback } from "../../lifecycle/rollback.js";
import type { JobContext } from "../context.js";
import { treesEqual } from "../packages.js";

export type RollbackResult =
  | { kind: "proposed"; package: string; revision: number; branch: string; pull: number; existing: boolean }
  | { kind: "refused"; reason: string };

/**
 * A rollback, as porchlight has it (Porch has none): a new draft `drafts/<package>/rollback-v<N>` whose
 * package files are revision N's, proposed for review. Approving it publishes the next revision with that
 * content, which the catalog and fan-out treat as any new revision; nothing published is rewritten. Asked
 * again (the same comment redelivered, a job run after a crash), it finds its draft and proposal rather
 * than opening a second one. `toRevision` defaults to the revision before the latest.
 */
export async function proposeRollback(
  ctx: JobContext,
  input: { package: string; toRevision?: number; requestedBy: string },
): Promise<RollbackResult> {
  const pkg = input.package;
  const refs = await ctx.port.listRefs();
  const published = [...indexRefs(refs).tags.keys()]
    .map((t) => parseRevisionTag(t))
    .flatMap((t) => (t.ok && t.value.package === pkg ? [t.value.revision] : []))
    .sort((a, b) => a - b);
  const latest = published.at(-1);
  if (latest === undefined) return refused(`${pkg} has no published revision to roll back to.`);
  const to = input.toRevision ?? published.at(-2);
  if (to === undefined)
    return refused(`${pkg} has one published revision, v${latest}: there is no earlier one to roll back to.`);
  if (to === latest)
    return refused(
      `v${to} is ${pkg}'s latest revision already; name an earlier one, like \`v${published.at(-2) ?? 1}\`.`,
    );
  if (!published.includes(to)) {
    return refused(
      `${pkg} has no published revision v${to} (published: ${published.map((n) => `v${n}`).join(", ")}).`,
    );
  }
  const fromTag = `${pkg}/v${to}`;
  const [old, base] = await Promise.all([
    ctx.port.readTree(`refs/tags/${fromTag}`, pkg),
    ctx.port.readTree(`refs/heads/${ctx.baseBranch}`, pkg),
  ]);
  if (treesEqual(old.tree, base.tree)) {
    return refused(
      `\`${ctx.baseBranch}\` already holds the content of ${pkg} v${to} (v${latest} has it); there is nothing to roll back.`,
    );
  }
  const existing = await existingDraft(ctx, pkg, to, old.tree);
  if (existing) {
    const open = await openPullFrom(ctx, existing);
    const pull = open ?? (await ctx.port.createPull(proposal(ctx, pkg, to, existing, input.requestedBy)));
    return {
      kind: "proposed",
      package: pkg,
      revision: to,
      branch: existing,
      pull: pull.number,
      existing: !!open,
    };
  }
  const plan = planRollback({ package: pkg, toRevision: to, refs });
  if (!plan.ok) return refused(plan.reason);
  const pushed = await ctx.port.commitTree({
    branch: plan.value.branch,
    parent: base.sha,
    dir: pkg,
    tree: old.tree,
    message: `Roll back ${pkg} to v${to}\n\nThe package files of ${fromTag} (${old.sha.slice(0, 7)}), as asked by @${input.requestedBy}.\n`,
    author: ctx.bot.author,
  });
  if (!pushed.ok) {
    return refused(
      `Could not create the draft \`${plan.value.branch}\` (${pushed.reason === "non-fast-forward" ? "someone created it meanwhile" : pushed.reason}); try again.`,
    );
  }
  const pull = await ctx.port.createPull(proposal(ctx, pkg, to, plan.value.branch, input.requestedBy));
  return {
    kind: "proposed",
    package: pkg,
    revision: to,
    branch: plan.value.branch,
    pull: pull.number,
    existing: false,
  };
}

/** A `drafts/<pkg>/rollback-v<N>[-k]` branch that already holds revision N's package files. */
async function existingDraft(
  ctx: JobContext,
  pkg: string,
  to: number,
  content: Parameters<typeof treesEqual>[0],
): Promise<string | undefined> {
  const base = formatDraftBranch({ package: pkg, workspace: `rollback-v${to}` });
  const candidates = [...indexRefs(await ctx.port.listRefs()).branches.keys()]
    .filter((b) => b === base || (b.startsWith(`${base}-`) && /^[0-9]+$/.test(b.slice(base.length + 1))))
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  for (const branch of candidates) {
    if (treesEqual((await ctx.port.readTree(`refs/heads/${branch}`, pkg)).tree, content)) return branch;
  }
  return undefined;
}

async function openPullFrom(ctx: JobContext, branch: string): Promise<PullRequest | undefined> {
  return (await ctx.port.listPullsFrom(branch)).find((p) => p.state === "open");
}

function proposal(ctx: JobContext, pkg: string, to: number, branch: string, by: string) {
  return {
    head: branch,
    base: ctx.baseBranch,
    title: `Roll back ${pkg} to v${to}`,
    body: [
      `Proposes the content of \`${pkg}/v${to}\` as the next revision of \`${pkg}\`, as asked by @${by}.`,
      "",
      "Published revisions are never rewritten: approving this publishes a new revision with v" +
        `${to}'s files, recorded in the catalog and taken to downstreams by fan-out like any other. The diff below is exactly what goes back.`,
      "",
      "Approve (a review, or `/approve`) to publish it; `/reject` returns it to draft.",
    ].join("\n"),
  };
}

function refused(reason: string): RollbackResult {
  return { kind: "refused", reason };
}
