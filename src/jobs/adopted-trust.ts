import { hasPermission } from "../api/permission.js";
import type { Runtime } from "../config/schema.js";
import type { FileTree } from "../kpt/tree.js";
import { type AdoptedFrom, parseAdoptMessage } from "../lifecycle/adopted.js";
import { allowedRuntimes, type JobContext } from "./context.js";

/**
 * Whose content a draft's head is: a maintainer's (anyone who can push here, or porchlight on their
 * behalf), or a fork author's that `/adopt` copied and no maintainer has vouched for yet.
 */
export type ContentTrust = { trusted: true } | { trusted: false; adopted: AdoptedFrom; adoptSha: string };

/**
 * Reads who vouched for the draft's content at `head`. Walking down from the head through the
 * commits the base branch lacks: a commit porchlight did not write means someone with push access
 * put it there (trusted); porchlight's own commits (renders, updates) are passed over; porchlight's
 * adopt commit means the content is a fork author's, trusted only once someone with write
 * permission approved one of the commits from it up to the head in a review of the draft's proposal.
 * Nothing is remembered: a sweep after a restart decides the same.
 */
export async function contentTrust(
  ctx: Pick<JobContext, "port" | "bot" | "baseBranch">,
  input: { head: string; branch: string },
): Promise<ContentTrust> {
  const commits = await ctx.port.listCommits(`refs/heads/${ctx.baseBranch}`, input.head);
  const ours: string[] = [];
  for (const c of commits) {
    if (c.author.email !== ctx.bot.author.email) break;
    ours.push(c.sha);
  }
  if (ours.length === 0) return { trusted: true };
  const messages = await ctx.port.commitMessages(ours);
  const at = ours.findIndex((sha) => parseAdoptMessage(messages.get(sha) ?? "") !== undefined);
  const adoptSha = ours[at];
  const adopted = parseAdoptMessage(messages.get(adoptSha ?? "") ?? "");
  if (adoptSha === undefined || adopted === undefined) return { trusted: true };
  const vouched = new Set(ours.slice(0, at + 1));
  for (const pr of await ctx.port.listPullsFrom(input.branch)) {
    if (pr.state !== "open") continue;
    for (const r of await ctx.port.listReviews(pr.number)) {
      if (r.state !== "APPROVED" || !vouched.has(r.commitId)) continue;
      if (hasPermission(await ctx.port.permissionOf(r.user), "write")) return { trusted: true };
    }
  }
  return { trusted: false, adopted, adoptSha };
}

/** What a render of a draft may run: the runtimes, those held back for now, and why. */
export interface RenderPlan {
  runtimes: Runtime[];
  /** Allowed runtimes whose functions wait for a maintainer (empty: nothing waits). */
  holdBack: Runtime[];
}

/**
 * The runtimes a render of `tree` (the draft's package at `head`) uses: the repository's, unless its
 * pipelines need exec or container functions and the content is an adopted fork's no maintainer has
 * vouched for — then builtins only, the others held back. Git is read only when something would be
 * held back: a pipeline of builtins needs no answer.
 */
export async function renderPlan(
  ctx: Pick<JobContext, "port" | "bot" | "baseBranch" | "renderer" | "config" | "operatorRuntimes">,
  input: { tree: FileTree; head: string; branch: string },
): Promise<RenderPlan> {
  const allowed = allowedRuntimes(ctx);
  const beyond = allowed.filter((r) => r !== "builtin");
  const needed = ctx.renderer.runtimesNeeded(input.tree).filter((r) => r !== "builtin" && beyond.includes(r));
  if (needed.length === 0) return { runtimes: allowed, holdBack: [] };
  const trust = await contentTrust(ctx, input);
  return trust.trusted ? { runtimes: allowed, holdBack: [] } : { runtimes: ["builtin"], holdBack: beyond };
}

/** What a check says about functions held back: which, and what lets them run. */
export function heldBackText(heldBack: readonly string[]): string {
  const list = heldBack.map((f) => `\`${f}\``).join(", ");
  const them = heldBack.length === 1 ? "It runs" : "They run";
  return `${list} ${heldBack.length === 1 ? "was" : "were"} not run: this draft holds a fork's content copied with \`/adopt\`, and porchlight runs no exec or container function of a fork's until a maintainer vouches for it. ${them} once someone with write permission approves the proposal in a review (Files changed → Review changes → Approve) or pushes a commit of their own to the draft.`;
}
