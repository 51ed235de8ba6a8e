import { actor } from "../access.js";
import type { ForgeCore } from "../context.js";
import { ApiError, created, customError, invalidField, notFound, ok } from "../http.js";
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

  // GitHub Enterprise's admin API: a site administrator creates an organization (and names its admin)
  r.add("POST", "/admin/organizations", "token", (ctx) => {
    if (ctx.principal.kind !== "user" || !ctx.principal.user.siteAdmin)
      throw new ApiError(403, "Must be a site administrator to create an organization");
    const login = ctx.body.login;
    if (typeof login !== "string" || !/^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/.test(login))
      throw invalidField("Organization", "login", typeof login === "string" ? login : null);
    if (ctx.core.store.user(login)) throw customError("Organization", `login "${login}" is taken`, "login");
    const org = ctx.core.store.ensureUser(login, "Organization");
    if (typeof ctx.body.profile_name === "string") org.name = ctx.body.profile_name;
    ctx.core.store.save();
    return created({ ...simpleUser(ctx.core, org), name: org.name });
  });

  r.add("GET", "/users/{username}", "token", (ctx) => {
    const u = ctx.core.store.user(ctx.params.username!);
    if (!u) throw notFound();
    return ok(publicUser(ctx.core, u));
  });
}
