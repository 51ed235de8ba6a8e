import { actorOf, type Principal } from "./auth.js";
import type { Ctx, ForgeCore } from "./context.js";
import { ApiError, notFound } from "./http.js";
import { atLeast } from "./permission.js";
import { installationCovers } from "./state.js";
import type { Permission, RepoRec, UserRec } from "./types.js";

/** What a principal may do on a repository. Installations get write on the repositories they cover. */
export function accessLevel(core: ForgeCore, p: Principal, repo: RepoRec): Permission {
  if (p.kind === "installation") {
    // Like GitHub, an installation reads public repositories it is not installed on (a fork) and writes none.
    if (!installationCovers(p.installation, repo)) return repo.private ? "none" : "read";
    if (p.token.repositoryIds && !p.token.repositoryIds.includes(repo.id)) return "none";
    return "write";
  }
  if (p.kind === "user") {
    const level = core.store.permission(repo, p.user.login);
    return level === "none" && !repo.private ? "read" : level;
  }
  return repo.private ? "none" : "read";
}

/**
 * The repository named by `{owner}/{repo}`, checked for `need`: 404 when the caller cannot see it
 * (GitHub hides private repositories), 403 with GitHub's wording when it can see but not change it.
 */
export function repoFor(ctx: Ctx, need: Permission = "read"): RepoRec {
  const repo = ctx.core.store.repo(ctx.params.owner ?? "", ctx.params.repo ?? "");
  if (!repo) throw notFound();
  const have = accessLevel(ctx.core, ctx.principal, repo);
  if (have === "none") throw notFound();
  // An installation only reads what it is not installed on: no issue, comment or pull request there.
  const reading = ctx.method === "GET" || ctx.method === "HEAD";
  if (
    ctx.principal.kind === "installation" &&
    !reading &&
    !installationCovers(ctx.principal.installation, repo)
  )
    throw new ApiError(403, "Resource not accessible by integration");
  if (!atLeast(have, need)) {
    throw new ApiError(
      403,
      ctx.principal.kind === "installation"
        ? "Resource not accessible by integration"
        : need === "admin"
          ? "Must have admin rights to Repository."
          : "Resource not accessible by personal access token",
    );
  }
  return repo;
}

/** The acting user; a request reaching here without one is refused like GitHub does. */
export function actor(ctx: Ctx): UserRec {
  const u = actorOf(ctx.principal);
  if (!u) throw new ApiError(401, "Requires authentication");
  return u;
}

/** Checks and status writes are app-only on GitHub. */
export function requireApp(ctx: Ctx): void {
  if (ctx.principal.kind !== "installation")
    throw new ApiError(403, "You must authenticate via a GitHub App.");
}
