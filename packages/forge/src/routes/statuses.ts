import { actor, repoFor } from "../access.js";
import type { Ctx, ForgeCore } from "../context.js";
import { emitRepoEvent } from "../events.js";
import { ApiError, created, invalidField, nodeId, ok } from "../http.js";
import type { Router } from "../router.js";
import { restCommitShape } from "../shapes/commit.js";
import { repoApi } from "../shapes/issue.js";
import { repoShape } from "../shapes/repo.js";
import { userByLogin } from "../shapes/user.js";
import type { RepoRec, StatusRec } from "../types.js";
import { commitOf, repoDir } from "./objects.js";
import { paginate } from "./paginate.js";

const STATES = ["error", "failure", "pending", "success"];

function statusShape(core: ForgeCore, repo: RepoRec, s: StatusRec): Record<string, unknown> {
  const creator = core.store.ensureUser(s.creatorLogin);
  return {
    url: `${repoApi(core, repo)}/statuses/${s.sha}`,
    avatar_url: `${core.urls.web}/avatars/u/${creator.id}?v=4`,
    id: s.id,
    node_id: nodeId("StatusContext", s.id),
    state: s.state,
    description: s.description,
    target_url: s.targetUrl,
    context: s.context,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    creator: userByLogin(core, s.creatorLogin),
  };
}

/** GitHub lists at most 10 branches in a status payload. */
const MAX_STATUS_BRANCHES = 10;

/**
 * `status`, to every app installed on the repository: the status as created, its commit, and the
 * branches holding the commit (at their head or below it), at most ten.
 */
async function emitStatus(ctx: Ctx, repo: RepoRec, s: StatusRec): Promise<void> {
  const dir = repoDir(ctx, repo);
  const commit = await ctx.core.git.commit(dir, s.sha);
  if (!commit) return;
  const branches: Record<string, unknown>[] = [];
  for (const [ref, tip] of [...(await ctx.core.git.refs(dir))].sort(([a], [b]) => a.localeCompare(b))) {
    if (branches.length >= MAX_STATUS_BRANCHES) break;
    if (!ref.startsWith("refs/heads/")) continue;
    if (tip !== s.sha && !(await ctx.core.git.isAncestor(dir, s.sha, tip))) continue;
    branches.push({
      name: ref.slice("refs/heads/".length),
      commit: { sha: tip, url: `${repoApi(ctx.core, repo)}/commits/${tip}` },
      protected: false,
    });
  }
  const {
    avatar_url,
    url: _url,
    node_id: _node,
    creator: _creator,
    ...rest
  } = statusShape(ctx.core, repo, s);
  // The webhook's commit verification has no `verified_at` (the REST commit's has).
  const shape = restCommitShape(ctx.core, repo, commit);
  const inner = shape.commit as { verification: Record<string, unknown> };
  const { verified_at: _at, ...verification } = inner.verification;
  emitRepoEvent(
    ctx.core,
    repo,
    "status",
    {
      ...rest,
      sha: s.sha,
      name: `${repo.ownerLogin}/${repo.name}`,
      avatar_url,
      commit: { ...shape, commit: { ...inner, verification } },
      branches,
    },
    actor(ctx),
  );
}

/** Commit statuses and the combined status of a ref. */
export function statusRoutes(r: Router): void {
  r.add("POST", "/repos/{owner}/{repo}/statuses/{sha}", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const sha = ctx.params.sha!;
    const resolved = await ctx.core.git.resolve(repoDir(ctx, repo), sha);
    if (!resolved) throw new ApiError(422, `No commit found for SHA: ${sha}`);
    const state = ctx.body.state;
    if (typeof state !== "string" || !STATES.includes(state))
      throw invalidField("Status", "state", String(state));
    const now = ctx.core.store.timestamp();
    const s: StatusRec = {
      id: ctx.core.store.nextId(),
      repoId: repo.id,
      sha: resolved,
      state: state as StatusRec["state"],
      targetUrl: typeof ctx.body.target_url === "string" ? ctx.body.target_url : null,
      description: typeof ctx.body.description === "string" ? ctx.body.description : null,
      context: typeof ctx.body.context === "string" ? ctx.body.context : "default",
      creatorLogin: actor(ctx).login,
      createdAt: now,
      updatedAt: now,
    };
    ctx.core.store.data.statuses.push(s);
    await emitStatus(ctx, repo, s);
    return created(statusShape(ctx.core, repo, s));
  });

  r.add("GET", "/repos/{owner}/{repo}/commits/{ref}/statuses", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const sha = await commitOf(ctx, repo, ctx.params.ref!, 404);
    const list = ctx.core.store.data.statuses.filter((s) => s.repoId === repo.id && s.sha === sha).reverse();
    return paginate(ctx, list, (s) => statusShape(ctx.core, repo, s));
  });

  r.add("GET", "/repos/{owner}/{repo}/commits/{ref}/status", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const sha = await commitOf(ctx, repo, ctx.params.ref!, 404);
    const latest = new Map<string, StatusRec>();
    for (const s of ctx.core.store.data.statuses)
      if (s.repoId === repo.id && s.sha === sha) latest.set(s.context, s);
    const statuses = [...latest.values()];
    const state = statuses.some((s) => s.state === "error" || s.state === "failure")
      ? "failure"
      : statuses.length === 0 || statuses.some((s) => s.state === "pending")
        ? "pending"
        : "success";
    const { owner, ...minimal } = repoShape(ctx.core, repo);
    return ok({
      state,
      statuses: statuses.map((s) => statusShape(ctx.core, repo, s)),
      sha,
      total_count: statuses.length,
      repository: { owner, ...minimal },
      commit_url: `${repoApi(ctx.core, repo)}/commits/${sha}`,
      url: `${repoApi(ctx.core, repo)}/commits/${sha}/status`,
    });
  });
}
