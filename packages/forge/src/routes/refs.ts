import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { onRefChanges } from "../events.js";
import { ZERO_SHA } from "../git.js";
import { ApiError, created, missingField, noContent, nodeId, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { repoApi } from "../shapes/issue.js";
import type { RepoRec } from "../types.js";

const unprocessable = (message: string) => new ApiError(422, message);

async function refShape(ctx: Ctx, repo: RepoRec, ref: string, sha: string): Promise<Record<string, unknown>> {
  const api = repoApi(ctx.core, repo);
  const type = (await ctx.core.git.objectType(ctx.core.git.dir(repo.ownerLogin, repo.name), sha)) ?? "commit";
  return {
    ref,
    node_id: nodeId("Ref", `${repo.id}:${ref}`),
    url: `${api}/git/${ref}`,
    object: { sha, type, url: `${api}/git/${type === "tag" ? "tags" : "commits"}/${sha}` },
  };
}

/**
 * Moves, creates or deletes a ref the way the REST API does, under the repository lock, and
 * sends the webhooks a push would. `force: false` refuses non-fast-forward updates.
 */
export async function moveRef(
  ctx: Ctx,
  repo: RepoRec,
  ref: string,
  next: string,
  opts: { expectOld?: string; force: boolean; create?: boolean },
): Promise<void> {
  const dir = ctx.core.git.dir(repo.ownerLogin, repo.name);
  const pusher = actor(ctx);
  await ctx.core.withRepoLock(repo.id, async () => {
    const refs = await ctx.core.git.refs(dir);
    const old = refs.get(ref);
    if (opts.create && old) throw unprocessable("Reference already exists");
    if (!opts.create && !old) throw unprocessable("Reference does not exist");
    if (opts.expectOld && old !== opts.expectOld) throw unprocessable("Reference cannot be updated");
    if (next !== ZERO_SHA) {
      if (!(await ctx.core.git.objectType(dir, next))) throw unprocessable("Object does not exist");
      if (old && !opts.force && !(await ctx.core.git.isAncestor(dir, old, next))) {
        throw unprocessable("Update is not a fast forward");
      }
      if (!(await ctx.core.git.updateRef(dir, ref, next, old ?? ZERO_SHA))) {
        throw unprocessable("Reference cannot be updated");
      }
    } else if (old && !(await ctx.core.git.deleteRef(dir, ref, old))) {
      throw unprocessable("Reference cannot be updated");
    }
    if (old !== next)
      await onRefChanges(ctx.core, repo, [{ ref, before: old ?? ZERO_SHA, after: next }], pusher);
  });
}

function fullRef(ref: string): string {
  return ref.startsWith("refs/") ? ref : `refs/${ref}`;
}

/** `/git/refs`, `/git/ref`, `/git/matching-refs`. */
export function refRoutes(r: Router): void {
  r.add("GET", "/repos/{owner}/{repo}/git/matching-refs/{ref*}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const prefix = fullRef(ctx.params.ref ?? "");
    const refs = await ctx.core.git.refs(ctx.core.git.dir(repo.ownerLogin, repo.name));
    const matching = [...refs].filter(([ref]) => ref.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1));
    return ok(await Promise.all(matching.map(([ref, sha]) => refShape(ctx, repo, ref, sha))));
  });

  r.add("GET", "/repos/{owner}/{repo}/git/ref/{ref+}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const ref = fullRef(ctx.params.ref!);
    const sha = (await ctx.core.git.refs(ctx.core.git.dir(repo.ownerLogin, repo.name))).get(ref);
    if (!sha) throw notFound();
    return ok(await refShape(ctx, repo, ref, sha));
  });

  // GitHub's older form, and the `url` of every ref it answers: the ref itself when one is named
  // exactly, else the refs under it (a list), else 404; no ref named: every ref.
  r.add("GET", "/repos/{owner}/{repo}/git/refs/{ref*}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const named = ctx.params.ref ?? "";
    const refs = await ctx.core.git.refs(ctx.core.git.dir(repo.ownerLogin, repo.name));
    const ref = fullRef(named);
    const exact = named === "" ? undefined : refs.get(ref);
    if (exact) return ok(await refShape(ctx, repo, ref, exact));
    const prefix = named === "" ? "refs/" : `${ref.replace(/\/$/, "")}/`;
    const under = [...refs].filter(([r]) => r.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1));
    if (under.length === 0) throw notFound();
    return ok(await Promise.all(under.map(([r, sha]) => refShape(ctx, repo, r, sha))));
  });

  r.add("POST", "/repos/{owner}/{repo}/git/refs", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const { ref, sha } = ctx.body;
    if (typeof ref !== "string") throw missingField("Reference", "ref");
    if (typeof sha !== "string") throw missingField("Reference", "sha");
    if (!ref.startsWith("refs/") || ref.split("/").length < 3) {
      throw unprocessable("Reference name must start with 'refs/' and have at least two slashes.");
    }
    if (!/^[0-9a-f]{40}$/.test(sha)) throw unprocessable("Object does not exist");
    await moveRef(ctx, repo, ref, sha, { force: true, create: true });
    return created(await refShape(ctx, repo, ref, sha));
  });

  r.add("PATCH", "/repos/{owner}/{repo}/git/refs/{ref+}", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const ref = fullRef(ctx.params.ref!);
    const { sha, force } = ctx.body;
    if (typeof sha !== "string") throw missingField("Reference", "sha");
    if (!/^[0-9a-f]{40}$/.test(sha)) throw unprocessable("Object does not exist");
    await moveRef(ctx, repo, ref, sha, { force: force === true });
    return ok(await refShape(ctx, repo, ref, sha));
  });

  r.add("DELETE", "/repos/{owner}/{repo}/git/refs/{ref+}", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    await moveRef(ctx, repo, fullRef(ctx.params.ref!), ZERO_SHA, { force: true });
    return noContent();
  });
}
