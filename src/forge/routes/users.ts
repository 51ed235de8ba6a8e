import { actor } from "../access.js";
import type { ForgeCore } from "../context.js";
import { ApiError, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { simpleUser } from "../shapes/user.js";
import type { UserRec } from "../types.js";

/** GitHub's `public-user` object. */
function publicUser(core: ForgeCore, u: UserRec): Record<string, unknown> {
  const repos = core.store.data.repos.filter((r) => r.ownerLogin === u.login);
  return {
    ...simpleUser(core, u),
    name: u.name,
    company: null,
    blog: "",
    location: null,
    email: u.email,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: repos.filter((r) => !r.private).length,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: u.createdAt,
    updated_at: u.createdAt,
  };
}

/** The authenticated user (PATs) and users by login. */
export function userRoutes(r: Router): void {
  r.add("GET", "/user", "token", (ctx) => {
    if (ctx.principal.kind === "installation")
      throw new ApiError(403, "Resource not accessible by integration");
    return ok(publicUser(ctx.core, actor(ctx)));
  });

  r.add("GET", "/users/{username}", "token", (ctx) => {
    const u = ctx.core.store.user(ctx.params.username!);
    if (!u) throw notFound();
    return ok(publicUser(ctx.core, u));
  });
}
