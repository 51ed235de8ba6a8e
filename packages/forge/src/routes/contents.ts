import { repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import type { TreeEntry } from "../git.js";
import { ApiError, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { repoApi, repoHtml } from "../shapes/issue.js";
import type { RepoRec } from "../types.js";
import { repoDir } from "./objects.js";

function entryType(e: TreeEntry): string {
  if (e.type === "tree") return "dir";
  if (e.type === "commit") return "submodule";
  return e.mode === "120000" ? "symlink" : "file";
}

function entryShape(ctx: Ctx, repo: RepoRec, ref: string, e: TreeEntry): Record<string, unknown> {
  const api = repoApi(ctx.core, repo);
  const type = entryType(e);
  const self = `${api}/contents/${e.path}?ref=${encodeURIComponent(ref)}`;
  const git = `${api}/git/${type === "dir" ? "trees" : "blobs"}/${e.sha}`;
  const html = `${repoHtml(ctx.core, repo)}/${type === "dir" ? "tree" : "blob"}/${ref}/${e.path}`;
  return {
    type,
    size: e.size,
    name: e.path.split("/").at(-1)!,
    path: e.path,
    sha: e.sha,
    url: self,
    git_url: git,
    html_url: html,
    download_url:
      type === "file" ? `${ctx.core.urls.web}/${repo.ownerLogin}/${repo.name}/raw/${ref}/${e.path}` : null,
    _links: { self, git, html },
  };
}

/** GitHub wraps base64 content at 60 columns. */
function wrapBase64(buf: Buffer): string {
  const b = buf.toString("base64");
  return `${b.replace(/(.{60})/g, "$1\n")}${b.length % 60 === 0 && b.length > 0 ? "" : "\n"}`;
}

/**
 * Whether `Accept` asks for a file's bytes: GitHub's `raw` media type, written
 * `application/vnd.github[.v3].raw[+json]`, alone or among other types.
 */
function wantsRaw(accept: string): boolean {
  return accept
    .split(",")
    .some((t) => /^application\/vnd\.github(\.v3)?\.raw(\+json)?$/i.test(t.split(";")[0]?.trim() ?? ""));
}

/**
 * `GET /repos/{owner}/{repo}/contents/{path}`: a file (base64 JSON, or its bytes as
 * `application/vnd.github.raw` when the raw media type is asked for) or a directory listing (always
 * JSON: directories take no custom media type).
 */
export function contentRoutes(r: Router): void {
  r.add("GET", "/repos/{owner}/{repo}/contents/{path*}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = repoDir(ctx, repo);
    const ref = ctx.query.get("ref") ?? repo.defaultBranch;
    const path = (ctx.params.path ?? "").replace(/^\/+|\/+$/g, "");
    if ((await ctx.core.git.refs(dir)).size === 0) throw new ApiError(404, "This repository is empty.");
    const sha =
      (await ctx.core.git.resolve(dir, `refs/heads/${ref}`)) ??
      (await ctx.core.git.resolve(dir, `refs/tags/${ref}`)) ??
      (/^[0-9a-f]{7,40}$/.test(ref) ? await ctx.core.git.resolve(dir, ref) : null);
    if (!sha) throw new ApiError(404, `No commit found for the ref ${ref}`);
    if (path === "") {
      const entries = (await ctx.core.git.lsTree(dir, sha)) ?? [];
      return ok(entries.map((e) => entryShape(ctx, repo, ref, e)));
    }
    const entry = await ctx.core.git.entryAt(dir, sha, path);
    if (!entry) throw notFound();
    if (entry.type === "tree") {
      const entries = (await ctx.core.git.lsTree(dir, sha, path)) ?? [];
      return ok(entries.map((e) => entryShape(ctx, repo, ref, e)));
    }
    const shape = entryShape(ctx, repo, ref, entry);
    if (shape.type !== "file") return ok(shape);
    const content = await ctx.core.git.blob(dir, entry.sha);
    if (wantsRaw(ctx.accept)) {
      return ok(content, {
        "content-type": "application/vnd.github.raw; charset=utf-8",
        "x-github-media-type": "github.v3; param=raw",
      });
    }
    return ok({ ...shape, content: wrapBase64(content), encoding: "base64" });
  });
}
