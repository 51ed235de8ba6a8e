import { actor, repoFor } from "../access.js";
import { createRepo, setPermission } from "../admin.js";
import type { Ctx } from "../context.js";
import { runGit } from "../git.js";
import { ApiError, created, invalidField, missingField, noContent, notFound, ok } from "../http.js";
import { atLeast, isPermission } from "../permission.js";
import type { Router } from "../router.js";
import { restCommitShape } from "../shapes/commit.js";
import { fullRepoShape, repoShape } from "../shapes/repo.js";
import { simpleUser } from "../shapes/user.js";
import type { Permission, UserRec } from "../types.js";
import { paginate } from "./paginate.js";

function viewerLogin(ctx: Ctx): string | undefined {
  return ctx.principal.kind === "user" ? ctx.principal.user.login : undefined;
}

async function createFromBody(ctx: Ctx, owner: string) {
  const name = ctx.body.name;
  if (typeof name !== "string" || name === "") throw missingField("Repository", "name");
  // GitHub's default is public; `private: true` or `visibility: private|internal` makes it private.
  const visibility = ctx.body.visibility;
  const repo = await createRepo(ctx.core, owner, name, {
    private: ctx.body.private === true || visibility === "private" || visibility === "internal",
    description: typeof ctx.body.description === "string" ? ctx.body.description : null,
    autoInit: ctx.body.auto_init === true,
  });
  if (ctx.principal.kind === "installation") {
    const inst = ctx.principal.installation;
    if (inst.repositorySelection === "selected") inst.repositoryIds.push(repo.id);
  }
  return created(fullRepoShape(ctx.core, repo, viewerLogin(ctx)));
}

/** GitHub's collaborator: the user, what their permission lets them do, and its name. */
function collaborator(ctx: Ctx, user: UserRec, level: Permission) {
  return {
    ...simpleUser(ctx.core, user),
    permissions: {
      admin: atLeast(level, "admin"),
      maintain: atLeast(level, "maintain"),
      push: atLeast(level, "write"),
      triage: atLeast(level, "triage"),
      pull: atLeast(level, "read"),
    },
    role_name: level,
  };
}

/** Repositories: create, get, update, list, topics, branches, collaborators. */
export function repoRoutes(r: Router): void {
  r.add("GET", "/repos/{owner}/{repo}", "token", (ctx) =>
    ok(fullRepoShape(ctx.core, repoFor(ctx), viewerLogin(ctx))),
  );

  r.add("PATCH", "/repos/{owner}/{repo}", "token", async (ctx) => {
    const repo = repoFor(ctx, "admin");
    const b = ctx.body;
    if (typeof b.description === "string" || b.description === null) repo.description = b.description;
    if (typeof b.private === "boolean") repo.private = b.private;
    if (typeof b.default_branch === "string" && b.default_branch !== repo.defaultBranch) {
      const dir = ctx.core.git.dir(repo.ownerLogin, repo.name);
      if (!(await ctx.core.git.resolve(dir, `refs/heads/${b.default_branch}`))) {
        throw invalidField("Repository", "default_branch", b.default_branch);
      }
      await runGit(dir, ["symbolic-ref", "HEAD", `refs/heads/${b.default_branch}`]);
      repo.defaultBranch = b.default_branch;
    }
    repo.updatedAt = ctx.core.store.timestamp();
    return ok(fullRepoShape(ctx.core, repo, viewerLogin(ctx)));
  });

  r.add("POST", "/orgs/{org}/repos", "token", async (ctx) => {
    const org = ctx.core.store.user(ctx.params.org!);
    if (!org) throw notFound();
    if (ctx.principal.kind === "installation") {
      if (ctx.principal.installation.accountLogin.toLowerCase() !== org.login.toLowerCase()) throw notFound();
      // Creating repositories takes the app's `administration: write`, which porchlight does not ask for.
      if (ctx.principal.app.permissions.administration !== "write")
        throw new ApiError(403, "Resource not accessible by integration");
    } else if (ctx.principal.kind === "user") {
      const u = ctx.principal.user.login;
      const isAdmin = ctx.core.store.data.repos.some(
        (x) => x.ownerLogin === org.login && ctx.core.store.permission(x, u) === "admin",
      );
      if (!isAdmin && org.login !== u && !ctx.principal.user.siteAdmin)
        throw new ApiError(
          403,
          "You need admin access to the organization before adding a repository to it.",
        );
    }
    return createFromBody(ctx, org.login);
  });

  r.add("POST", "/user/repos", "token", (ctx) => createFromBody(ctx, actor(ctx).login));

  // the repositories the user owns or is a collaborator on (GitHub's default affiliations; the forge
  // keeps no organization membership beyond collaborators), public or private
  r.add("GET", "/user/repos", "token", (ctx) => {
    const login = actor(ctx).login;
    const repos = ctx.core.store.data.repos.filter((x) => ctx.core.store.permission(x, login) !== "none");
    return paginate(ctx, repos, (x) => repoShape(ctx.core, x, { permissionsFor: login }));
  });

  for (const template of ["/orgs/{org}/repos", "/users/{username}/repos"]) {
    r.add("GET", template, "token", (ctx) => {
      const login = (ctx.params.org ?? ctx.params.username ?? "").toLowerCase();
      if (!ctx.core.store.user(login)) throw notFound();
      const repos = ctx.core.store.data.repos.filter((x) => {
        if (x.ownerLogin.toLowerCase() !== login) return false;
        try {
          repoFor({ ...ctx, params: { owner: x.ownerLogin, repo: x.name } });
          return true;
        } catch {
          return false;
        }
      });
      return paginate(ctx, repos, (x) => repoShape(ctx.core, x, { permissionsFor: viewerLogin(ctx) ?? "" }));
    });
  }

  r.add("GET", "/repos/{owner}/{repo}/topics", "token", (ctx) => ok({ names: repoFor(ctx).topics }));

  r.add("PUT", "/repos/{owner}/{repo}/topics", "token", (ctx) => {
    const repo = repoFor(ctx, "write");
    const names = ctx.body.names;
    if (!Array.isArray(names)) throw missingField("Repository", "names");
    const bad = names.find((n) => typeof n !== "string" || !/^[a-z0-9][a-z0-9-]{0,49}$/.test(n));
    if (bad !== undefined) {
      throw new ApiError(422, "Invalid topics", {
        errors: [
          {
            resource: "Repository",
            field: "topics",
            code: "invalid",
            message: `${String(bad)} is not a valid topic. Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens.`,
          },
        ],
      });
    }
    repo.topics = [...new Set(names as string[])];
    return ok({ names: repo.topics });
  });

  r.add("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", "token", (ctx) => {
    const repo = repoFor(ctx);
    const user = ctx.core.store.user(ctx.params.username!);
    if (!user) throw notFound();
    const level = ctx.core.store.permission(repo, user.login);
    const permission =
      level === "maintain" ? "write" : level === "triage" ? "read" : level === "none" ? "none" : level;
    return ok({
      permission,
      role_name: level === "none" ? "none" : level,
      user: collaborator(ctx, user, level),
    });
  });

  // GitHub's listing needs push access; it names each collaborator with the permission they hold
  r.add("GET", "/repos/{owner}/{repo}/collaborators", "token", (ctx) => {
    const repo = repoFor(ctx, "write");
    const owner = ctx.core.store.user(repo.ownerLogin);
    const logins = [
      ...(owner && owner.type !== "Organization" ? [owner.login] : []),
      ...Object.keys(repo.collaborators),
    ];
    const users = logins
      .map((login) => ctx.core.store.user(login))
      .filter(
        (u): u is NonNullable<typeof u> =>
          u !== undefined && ctx.core.store.permission(repo, u.login) !== "none",
      );
    return paginate(ctx, users, (user) =>
      collaborator(ctx, user, ctx.core.store.permission(repo, user.login)),
    );
  });

  r.add("PUT", "/repos/{owner}/{repo}/collaborators/{username}", "token", (ctx) => {
    const repo = repoFor(ctx, "admin");
    const p = (ctx.body.permission ?? "push") as string;
    const map: Record<string, Permission> = {
      pull: "read",
      push: "write",
      triage: "triage",
      maintain: "maintain",
      admin: "admin",
    };
    const level = map[p] ?? (isPermission(p) && p !== "none" ? p : undefined);
    if (!level) throw invalidField("Repository", "permission", p);
    setPermission(ctx.core, repo, ctx.params.username!, level);
    return noContent();
  });

  r.add("GET", "/repos/{owner}/{repo}/branches/{branch+}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = ctx.core.git.dir(repo.ownerLogin, repo.name);
    const name = ctx.params.branch!;
    const sha = await ctx.core.git.resolve(dir, `refs/heads/${name}`);
    if (!sha) throw new ApiError(404, "Branch not found");
    const c = (await ctx.core.git.commit(dir, sha))!;
    const api = `${ctx.core.urls.api}/repos/${repo.ownerLogin}/${repo.name}`;
    return ok({
      name,
      commit: restCommitShape(ctx.core, repo, c),
      _links: {
        self: `${api}/branches/${name}`,
        html: `${ctx.core.urls.web}/${repo.ownerLogin}/${repo.name}/tree/${name}`,
      },
      protected: false,
      protection: {
        enabled: false,
        required_status_checks: { enforcement_level: "off", contexts: [], checks: [] },
      },
      protection_url: `${api}/branches/${name}/protection`,
    });
  });

  r.add("GET", "/repos/{owner}/{repo}/branches", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const refs = await ctx.core.git.refs(ctx.core.git.dir(repo.ownerLogin, repo.name));
    const branches = [...refs]
      .filter(([ref]) => ref.startsWith("refs/heads/"))
      .sort(([a], [b]) => (a < b ? -1 : 1));
    const api = `${ctx.core.urls.api}/repos/${repo.ownerLogin}/${repo.name}`;
    return paginate(ctx, branches, ([ref, sha]) => ({
      name: ref.slice(11),
      commit: { sha, url: `${api}/commits/${sha}` },
      protected: false,
    }));
  });
}
