import { actor } from "../access.js";
import type { Ctx } from "../context.js";
import { emitPullEvent } from "../events.js";
import { ApiError, invalidField } from "../http.js";
import { fullPull } from "../shapes/pull.js";
import type { IssueRec, RepoRec } from "../types.js";
import { repoDir } from "./objects.js";
import { moveRef } from "./refs.js";

const notMergeable = () => new ApiError(405, "Pull Request is not mergeable");
const notRebaseable = () => new ApiError(405, "This branch can't be rebased");

/**
 * Replays the commits of `head` missing from `base` on top of it, as GitHub's rebase merge does.
 * Each step is a cherry-pick computed by `git merge-tree`: a throwaway commit with the current
 * tree and the picked commit's parent makes that parent the merge base.
 */
async function rebase(
  ctx: Ctx,
  dir: string,
  base: string,
  head: string,
  who: { name: string; email: string },
): Promise<string> {
  const git = ctx.core.git;
  const mergeBase = (await git.mergeBase(dir, base, head)) ?? base;
  let current = base;
  for (const sha of await git.revList(dir, head, [mergeBase])) {
    const c = (await git.commit(dir, sha))!;
    if (c.parents.length !== 1) throw notRebaseable();
    const tree = (await git.commit(dir, current))!.tree;
    const synthetic = await git.commitTree(dir, tree, [c.parents[0]!], "rebase step\n", who);
    const picked = await git.mergeTree(dir, synthetic, sha);
    if (!("tree" in picked)) throw notRebaseable();
    current = await git.commitTree(dir, picked.tree, [current], c.message, c.author, who);
  }
  return current;
}

/**
 * `PUT /pulls/{n}/merge`: merge (two parents), squash (one) or rebase (replayed commits, only
 * when the base has not moved), computed with `git merge-tree`, base ref moved atomically.
 */
export async function mergePull(ctx: Ctx, repo: RepoRec, issue: IssueRec): Promise<Record<string, unknown>> {
  actor(ctx);
  const pull = issue.pull!;
  const method = (ctx.body.merge_method as string | undefined) ?? "merge";
  if (!["merge", "squash", "rebase"].includes(method))
    throw invalidField("PullRequest", "merge_method", method);
  if (issue.state !== "open" || pull.merged || pull.merging) throw notMergeable();
  if (pull.draft) throw new ApiError(405, "Pull Request is still a draft");
  // Two merges at once (the bot answering a review while `rpkg approve` merges) must not both land: the
  // second would see the first's commit as the base and merge the pull request a second time.
  pull.merging = true;
  try {
    return await mergeOnce(ctx, repo, issue, method);
  } finally {
    delete pull.merging;
  }
}

async function mergeOnce(
  ctx: Ctx,
  repo: RepoRec,
  issue: IssueRec,
  method: string,
): Promise<Record<string, unknown>> {
  const me = actor(ctx);
  const pull = issue.pull!;
  const dir = repoDir(ctx, repo);
  if (typeof ctx.body.sha === "string" && ctx.body.sha !== pull.headSha) {
    throw new ApiError(409, "Head branch was modified. Review and try the merge again.");
  }
  const baseSha = await ctx.core.git.resolve(dir, `refs/heads/${pull.baseRef}`);
  if (!baseSha) throw notMergeable();
  const merged = await ctx.core.git.mergeTree(dir, baseSha, pull.headSha);
  if (!("tree" in merged)) throw notMergeable();
  const who = { name: me.name ?? me.login, email: me.email ?? `${me.login}@users.noreply.localhost` };
  const title = typeof ctx.body.commit_title === "string" ? ctx.body.commit_title : undefined;
  const extra = typeof ctx.body.commit_message === "string" ? ctx.body.commit_message : undefined;
  let newSha: string;
  if (method === "merge") {
    const head = `${ctx.core.store.repoById(pull.headRepoId)?.ownerLogin ?? repo.ownerLogin}/${pull.headRef}`;
    const message = `${title ?? `Merge pull request #${issue.number} from ${head}`}\n\n${extra ?? issue.title}\n`;
    newSha = await ctx.core.git.commitTree(
      dir,
      merged.tree,
      [baseSha, pull.headSha],
      message,
      who,
      who,
      ctx.core.store.now(),
    );
  } else if (method === "squash") {
    const message = `${title ?? `${issue.title} (#${issue.number})`}\n\n${extra ?? ""}`.trimEnd();
    newSha = await ctx.core.git.commitTree(
      dir,
      merged.tree,
      [baseSha],
      `${message}\n`,
      who,
      who,
      ctx.core.store.now(),
    );
  } else {
    newSha = await rebase(ctx, dir, baseSha, pull.headSha, who);
  }
  try {
    await moveRef(ctx, repo, `refs/heads/${pull.baseRef}`, newSha, { expectOld: baseSha, force: false });
  } catch (err) {
    // GitHub answers another merge landing on the base meanwhile with 405 (a client merges again)
    if (err instanceof ApiError)
      throw new ApiError(405, "Base branch was modified. Review and try the merge again.");
    throw err;
  }
  const now = ctx.core.store.timestamp();
  Object.assign(pull, { merged: true, mergedAt: now, mergedByLogin: me.login, mergeCommitSha: newSha });
  Object.assign(issue, { state: "closed", closedAt: now, updatedAt: now });
  emitPullEvent(ctx.core, repo, "closed", await fullPull(ctx.core, repo, issue), issue.number, me);
  return { sha: newSha, merged: true, message: "Pull Request successfully merged" };
}
