import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { createFork, forksOf } from "../forks.js";
import { ApiError, notFound } from "../http.js";
import { atLeast } from "../permission.js";
import type { Router } from "../router.js";
import { fullRepoShape, repoShape } from "../shapes/repo.js";
import { paginate } from "./paginate.js";

/** Where a fork goes: the caller's account, or an organization they administer (`organization`). */
function forkOwner(ctx: Ctx): string {
  const me = actor(ctx);
  const org = ctx.body.organization;
  if (org === undefined || org === null) {
    if (ctx.principal.kind === "installation")
      throw new ApiError(403, "Resource not accessible by integration");
    return me.login;
  }
  if (typeof org !== "string")
    throw new ApiError(422, "Invalid request.\n\nFor 'properties/organization', is not a string.");
  const account = ctx.core.store.user(org);
  if (!account) throw notFound();
  if (ctx.principal.kind === "installation") {
    if (ctx.principal.installation.accountLogin.toLowerCase() !== account.login.toLowerCase())
      throw notFound();
    return account.login;
  }
  const admin = ctx.core.store.data.repos.some(
    (r) => r.ownerLogin === account.login && atLeast(ctx.core.store.permission(r, me.login), "admin"),
  );
  if (!admin && account.login !== me.login) {
    throw new ApiError(403, "You must be an admin of the organization to fork into it.");
  }
  return account.login;
}

/** Forks: create one (202, as GitHub: the copy is ready when the answer comes here), list them. */
export function forkRoutes(r: Router): void {
  r.add("POST", "/repos/{owner}/{repo}/forks", "token", async (ctx) => {
    const parent = repoFor(ctx, "read");
    const owner = forkOwner(ctx);
    if (owner.toLowerCase() === parent.ownerLogin.toLowerCase()) {
      throw new ApiError(422, "Validation Failed", {
        errors: [
          {
            resource: "Repository",
            code: "custom",
            message: "Cannot fork a repository into its own account.",
          },
        ],
      });
    }
    const name = typeof ctx.body.name === "string" && ctx.body.name !== "" ? ctx.body.name : undefined;
    const fork = await createFork(ctx.core, parent, owner, {
      ...(name ? { name } : {}),
      defaultBranchOnly: ctx.body.default_branch_only === true,
    });
    const viewer = ctx.principal.kind === "user" ? ctx.principal.user.login : undefined;
    return { status: 202, body: fullRepoShape(ctx.core, fork, viewer) };
  });

  r.add("GET", "/repos/{owner}/{repo}/forks", "token", (ctx) => {
    const repo = repoFor(ctx);
    const visible = forksOf(ctx.core, repo).filter((f) => {
      try {
        repoFor({ ...ctx, params: { owner: f.ownerLogin, repo: f.name } });
        return true;
      } catch {
        return false;
      }
    });
    return paginate(ctx, visible, (f) => repoShape(ctx.core, f));
  });
}
