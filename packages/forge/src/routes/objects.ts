import { repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { ApiError, created, missingField, nodeId, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { diffEntry, gitCommitShape, restCommitShape } from "../shapes/commit.js";
import { repoApi, repoHtml } from "../shapes/issue.js";
import type { RepoRec } from "../types.js";
import { paginate } from "./paginate.js";

export function repoDir(ctx: Ctx, repo: RepoRec): string {
  return ctx.core.git.dir(repo.ownerLogin, repo.name);
}

/** Resolves a branch, tag or sha to a commit; 422 "No commit found for SHA: x" like GitHub. */
export async function commitOf(ctx: Ctx, repo: RepoRec, ref: string, status = 422): Promise<string> {
  const dir = repoDir(ctx, repo);
  const candidates = /^[0-9a-f]{4,40}$/.test(ref) ? [ref] : [];
  candidates.push(`refs/heads/${ref}`, `refs/tags/${ref}`, ref);
  for (const c of candidates) {
    const sha = await ctx.core.git.resolve(dir, c);
    if (sha) return sha;
  }
  throw new ApiError(status, `No commit found for SHA: ${ref}`);
}

function person(v: unknown, fallback: { name: string; email: string }): { name: string; email: string } {
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o.name === "string" && typeof o.email === "string") return { name: o.name, email: o.email };
  }
  return fallback;
}

async function tagShape(ctx: Ctx, repo: RepoRec, sha: string): Promise<Record<string, unknown>> {
  const t = await ctx.core.git.tag(repoDir(ctx, repo), sha);
  if (!t) throw notFound();
  const api = repoApi(ctx.core, repo);
  return {
    node_id: nodeId("Tag", sha),
    tag: t.tag,
    sha,
    url: `${api}/git/tags/${sha}`,
    message: t.message,
    tagger: t.tagger,
    object: {
      type: t.type,
      sha: t.object,
      url: `${api}/git/${t.type === "tag" ? "tags" : "commits"}/${t.object}`,
    },
    verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
  };
}

/** Git objects (commits, tags) and the REST commit views (get, list, compare). */
export function objectRoutes(r: Router): void {
  r.add("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const c = await ctx.core.git.commit(repoDir(ctx, repo), ctx.params.commit_sha!);
    if (!c) throw notFound();
    return ok(gitCommitShape(ctx.core, repo, c));
  });

  r.add("POST", "/repos/{owner}/{repo}/git/commits", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const dir = repoDir(ctx, repo);
    const { message, tree, parents } = ctx.body;
    if (typeof message !== "string") throw missingField("Commit", "message");
    if (typeof tree !== "string") throw missingField("Commit", "tree");
    if ((await ctx.core.git.objectType(dir, tree)) !== "tree")
      throw new ApiError(422, "Tree SHA does not exist");
    const ps = Array.isArray(parents) ? parents.map(String) : [];
    for (const p of ps) {
      if ((await ctx.core.git.objectType(dir, p)) !== "commit")
        throw new ApiError(422, "Parent SHA does not exist or is not a commit object");
    }
    const me =
      ctx.principal.kind === "installation"
        ? ctx.principal.actor
        : ctx.principal.kind === "user"
          ? ctx.principal.user
          : undefined;
    const fallback = {
      name: me?.login ?? "forge",
      email: me?.email ?? `${me?.login ?? "forge"}@users.noreply.localhost`,
    };
    const author = person(ctx.body.author, fallback);
    const sha = await ctx.core.git.commitTree(
      dir,
      tree,
      ps,
      message,
      author,
      person(ctx.body.committer, author),
    );
    const c = await ctx.core.git.commit(dir, sha);
    return created(gitCommitShape(ctx.core, repo, c!));
  });

  r.add("GET", "/repos/{owner}/{repo}/git/tags/{tag_sha}", "token", async (ctx) =>
    ok(await tagShape(ctx, repoFor(ctx), ctx.params.tag_sha!)),
  );

  r.add("POST", "/repos/{owner}/{repo}/git/tags", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const dir = repoDir(ctx, repo);
    const { tag, message, object, type } = ctx.body;
    if (typeof tag !== "string") throw missingField("Tag", "tag");
    if (typeof object !== "string") throw missingField("Tag", "object");
    const objType = await ctx.core.git.objectType(dir, object);
    if (!objType) throw new ApiError(422, "Object does not exist");
    const tagger = person(ctx.body.tagger, { name: "forge", email: "forge@users.noreply.localhost" });
    const when = Math.floor(ctx.core.store.now().getTime() / 1000);
    const content = `object ${object}\ntype ${typeof type === "string" ? type : objType}\ntag ${tag}\ntagger ${tagger.name} <${tagger.email}> ${when} +0000\n\n${typeof message === "string" ? message : ""}\n`;
    const sha = await ctx.core.git.mktag(dir, content);
    return created(await tagShape(ctx, repo, sha));
  });

  r.add("GET", "/repos/{owner}/{repo}/commits/{ref+}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = repoDir(ctx, repo);
    const sha = await commitOf(ctx, repo, ctx.params.ref!);
    const c = (await ctx.core.git.commit(dir, sha))!;
    const files = await ctx.core.git.diff(dir, c.parents[0] ?? null, sha);
    return ok(restCommitShape(ctx.core, repo, c, files));
  });

  r.add("GET", "/repos/{owner}/{repo}/commits", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = repoDir(ctx, repo);
    const start = ctx.query.get("sha") ?? repo.defaultBranch;
    const head = await ctx.core.git
      .resolve(dir, `refs/heads/${start}`)
      .then((s) => s ?? ctx.core.git.resolve(dir, start));
    if (!head) {
      if (!(await ctx.core.git.refs(dir)).size) throw new ApiError(409, "Git Repository is empty.");
      throw new ApiError(404, `No commit found for SHA: ${start}`);
    }
    const shas = (await ctx.core.git.revList(dir, head)).reverse();
    const commits = await Promise.all(shas.map((s) => ctx.core.git.commit(dir, s)));
    return paginate(ctx, commits, (c) => restCommitShape(ctx.core, repo, c!));
  });

  r.add("GET", "/repos/{owner}/{repo}/compare/{basehead+}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = repoDir(ctx, repo);
    const basehead = ctx.params.basehead!;
    const sep = basehead.indexOf("...");
    if (sep < 0) throw notFound();
    const base = await commitOf(ctx, repo, basehead.slice(0, sep), 404).catch(() => {
      throw notFound();
    });
    const head = await commitOf(ctx, repo, basehead.slice(sep + 3), 404).catch(() => {
      throw notFound();
    });
    const mergeBase = (await ctx.core.git.mergeBase(dir, base, head)) ?? base;
    const ahead = await ctx.core.git.revList(dir, head, [mergeBase]);
    const behind = await ctx.core.git.revList(dir, base, [mergeBase]);
    const files = await ctx.core.git.diff(dir, mergeBase, head);
    const status =
      ahead.length && behind.length
        ? "diverged"
        : ahead.length
          ? "ahead"
          : behind.length
            ? "behind"
            : "identical";
    const commitOfSha = async (s: string) =>
      restCommitShape(ctx.core, repo, (await ctx.core.git.commit(dir, s))!);
    const html = repoHtml(ctx.core, repo);
    return ok({
      url: `${repoApi(ctx.core, repo)}/compare/${basehead}`,
      html_url: `${html}/compare/${basehead}`,
      permalink_url: `${html}/compare/${repo.ownerLogin}:${base.slice(0, 7)}...${repo.ownerLogin}:${head.slice(0, 7)}`,
      diff_url: `${html}/compare/${basehead}.diff`,
      patch_url: `${html}/compare/${basehead}.patch`,
      base_commit: await commitOfSha(base),
      merge_base_commit: await commitOfSha(mergeBase),
      status,
      ahead_by: ahead.length,
      behind_by: behind.length,
      total_commits: ahead.length,
      commits: await Promise.all(ahead.slice(0, 250).map(commitOfSha)),
      files: files.map((f) => diffEntry(ctx.core, repo, head, f)),
    });
  });
}
