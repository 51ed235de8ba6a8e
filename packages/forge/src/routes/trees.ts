import { rmSync } from "node:fs";
import { join } from "node:path";
import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { commitFiles, runGit } from "../git.js";
import { ApiError, created, missingField, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { repoApi } from "../shapes/issue.js";
import type { RepoRec } from "../types.js";
import { repoDir } from "./objects.js";
import { paginate } from "./paginate.js";
import { moveRef } from "./refs.js";

function treeEntryShape(
  ctx: Ctx,
  repo: RepoRec,
  e: { mode: string; type: string; sha: string; size: number; path: string },
) {
  const api = repoApi(ctx.core, repo);
  return {
    path: e.path,
    mode: e.mode,
    type: e.type,
    sha: e.sha,
    ...(e.type === "blob" ? { size: e.size } : {}),
    url: `${api}/git/${e.type === "tree" ? "trees" : "blobs"}/${e.sha}`,
  };
}

async function treeShape(ctx: Ctx, repo: RepoRec, sha: string, recursive: boolean) {
  const dir = repoDir(ctx, repo);
  const args = ["ls-tree", "-l", "-z", ...(recursive ? ["-r", "-t"] : []), sha];
  const { stdout, code } = await runGit(dir, args, { allowFail: true });
  if (code !== 0) throw notFound();
  const entries = stdout
    .split("\0")
    .filter(Boolean)
    .map((rec) => {
      const tab = rec.indexOf("\t");
      const [mode, type, s, size] = rec.slice(0, tab).split(/\s+/) as [string, string, string, string];
      return { mode, type, sha: s, size: size === "-" ? 0 : Number(size), path: rec.slice(tab + 1) };
    });
  return {
    sha,
    url: `${repoApi(ctx.core, repo)}/git/trees/${sha}`,
    tree: entries.map((e) => treeEntryShape(ctx, repo, e)),
    truncated: false,
  };
}

/** Blobs, trees, and `PUT /contents/{path}` (a commit of one file on a branch). */
export function treeRoutes(r: Router): void {
  r.add("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const rq = ctx.query.get("recursive");
    const dir = repoDir(ctx, repo);
    const { stdout, code } = await runGit(
      dir,
      ["rev-parse", "--verify", "--quiet", `${ctx.params.tree_sha}^{tree}`],
      {
        allowFail: true,
      },
    );
    if (code !== 0) throw notFound();
    return ok(await treeShape(ctx, repo, stdout.trim(), rq !== null && rq !== "0" && rq !== "false"));
  });

  r.add("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = repoDir(ctx, repo);
    const sha = ctx.params.file_sha!;
    if ((await ctx.core.git.objectType(dir, sha)) !== "blob") throw notFound();
    const content = await ctx.core.git.blob(dir, sha);
    return ok({
      sha,
      node_id: Buffer.from(`Blob:${sha}`).toString("base64"),
      size: content.length,
      url: `${repoApi(ctx.core, repo)}/git/blobs/${sha}`,
      content: content.toString("base64"),
      encoding: "base64",
    });
  });

  r.add("POST", "/repos/{owner}/{repo}/git/blobs", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const { content, encoding } = ctx.body;
    if (typeof content !== "string") throw missingField("Blob", "content");
    const buf = encoding === "base64" ? Buffer.from(content, "base64") : Buffer.from(content, "utf8");
    const { stdout } = await runGit(repoDir(ctx, repo), ["hash-object", "-w", "--stdin"], { input: buf });
    const sha = stdout.trim();
    return created({ sha, url: `${repoApi(ctx.core, repo)}/git/blobs/${sha}` });
  });

  r.add("POST", "/repos/{owner}/{repo}/git/trees", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const dir = repoDir(ctx, repo);
    const tree = ctx.body.tree;
    if (!Array.isArray(tree)) throw missingField("Tree", "tree");
    const env = { GIT_INDEX_FILE: join(dir, `forge-tree-${ctx.core.store.nextId()}`) };
    const base = typeof ctx.body.base_tree === "string" ? ctx.body.base_tree : null;
    if (base && (await runGit(dir, ["read-tree", base], { env, allowFail: true })).code !== 0) {
      throw new ApiError(422, "Invalid tree info");
    }
    if (!base) await runGit(dir, ["read-tree", "--empty"], { env });
    for (const e of tree as Record<string, unknown>[]) {
      const path = String(e.path ?? "");
      if (!path) throw new ApiError(422, "Invalid tree info");
      if (e.sha === null) {
        await runGit(dir, ["update-index", "--force-remove", path], { env });
        continue;
      }
      let sha = typeof e.sha === "string" ? e.sha : undefined;
      if (typeof e.content === "string") {
        sha = (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: e.content })).stdout.trim();
      }
      if (!sha || !(await ctx.core.git.objectType(dir, sha))) throw new ApiError(422, "Invalid tree info");
      const mode = typeof e.mode === "string" ? e.mode : "100644";
      await runGit(dir, ["update-index", "--add", "--cacheinfo", `${mode},${sha},${path}`], { env });
    }
    const { stdout } = await runGit(dir, ["write-tree"], { env });
    rmSync(env.GIT_INDEX_FILE, { force: true });
    return created(await treeShape(ctx, repo, stdout.trim(), false));
  });

  r.add("PUT", "/repos/{owner}/{repo}/contents/{path+}", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const dir = repoDir(ctx, repo);
    const path = ctx.params.path!;
    const { message, content, sha, branch } = ctx.body;
    if (typeof message !== "string") throw missingField("Content", "message");
    if (typeof content !== "string") throw missingField("Content", "content");
    const ref = `refs/heads/${typeof branch === "string" ? branch : repo.defaultBranch}`;
    const parent = await ctx.core.git.resolve(dir, ref);
    if (!parent && typeof branch === "string" && (await ctx.core.git.refs(dir)).size > 0) {
      throw new ApiError(404, `Branch ${branch} not found`);
    }
    const existing = parent ? await ctx.core.git.entryAt(dir, parent, path) : null;
    if (existing && sha !== existing.sha) {
      throw new ApiError(
        sha === undefined ? 422 : 409,
        sha === undefined
          ? `Invalid request.\n\n"sha" wasn't supplied.`
          : `${path} does not match ${String(sha)}`,
      );
    }
    const me = actor(ctx);
    const commit = await commitFiles(ctx.core.git, dir, {
      parent,
      files: { [path]: Buffer.from(content, "base64") },
      message,
      author: { name: me.name ?? me.login, email: me.email ?? `${me.login}@users.noreply.localhost` },
      tmpIndex: join(dir, `forge-index-${ctx.core.store.nextId()}`),
    });
    await moveRef(ctx, repo, ref, commit, {
      force: false,
      create: !parent,
      ...(parent ? { expectOld: parent } : {}),
    });
    const entry = (await ctx.core.git.entryAt(dir, commit, path))!;
    const c = (await ctx.core.git.commit(dir, commit))!;
    const api = repoApi(ctx.core, repo);
    const html = `${ctx.core.urls.web}/${repo.ownerLogin}/${repo.name}`;
    const name = path.split("/").at(-1)!;
    const self = `${api}/contents/${path}?ref=${ref.slice(11)}`;
    return {
      status: existing ? 200 : 201,
      body: {
        content: {
          name,
          path,
          sha: entry.sha,
          size: entry.size,
          url: self,
          html_url: `${html}/blob/${ref.slice(11)}/${path}`,
          git_url: `${api}/git/blobs/${entry.sha}`,
          download_url: `${html}/raw/${ref.slice(11)}/${path}`,
          type: "file",
          _links: {
            self,
            git: `${api}/git/blobs/${entry.sha}`,
            html: `${html}/blob/${ref.slice(11)}/${path}`,
          },
        },
        commit: {
          sha: c.sha,
          node_id: Buffer.from(`Commit:${c.sha}`).toString("base64"),
          url: `${api}/git/commits/${c.sha}`,
          html_url: `${html}/commit/${c.sha}`,
          author: c.author,
          committer: c.committer,
          message: c.message.replace(/\n$/, ""),
          tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
          parents: c.parents.map((p) => ({
            sha: p,
            url: `${api}/git/commits/${p}`,
            html_url: `${html}/commit/${p}`,
          })),
          verification: {
            verified: false,
            reason: "unsigned",
            signature: null,
            payload: null,
            verified_at: null,
          },
        },
      },
    };
  });

  r.add("GET", "/repos/{owner}/{repo}/tags", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const dir = repoDir(ctx, repo);
    const refs = [...(await ctx.core.git.refs(dir))].filter(([ref]) => ref.startsWith("refs/tags/"));
    const api = repoApi(ctx.core, repo);
    const html = `${ctx.core.urls.web}/${repo.ownerLogin}/${repo.name}`;
    const out = [];
    for (const [ref, sha] of refs.sort(([a], [b]) => (a < b ? 1 : -1))) {
      const commit = (await ctx.core.git.resolve(dir, sha)) ?? sha;
      const name = ref.slice(10);
      out.push({
        name,
        commit: { sha: commit, url: `${api}/commits/${commit}` },
        zipball_url: `${html}/zipball/${name}`,
        tarball_url: `${html}/tarball/${name}`,
        node_id: Buffer.from(`Ref:${repo.id}:${ref}`).toString("base64"),
      });
    }
    return paginate(ctx, out);
  });
}
