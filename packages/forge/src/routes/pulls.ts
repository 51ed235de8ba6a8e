import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { emitPullEvent } from "../events.js";
import { copyHead, networkRepoOf } from "../forks.js";
import {
  ApiError,
  created,
  customError,
  invalidField,
  missingField,
  noContent,
  notFound,
  ok,
} from "../http.js";
import type { Router } from "../router.js";
import { diffEntry, restCommitShape } from "../shapes/commit.js";
import { fullPull, pullShape } from "../shapes/pull.js";
import type { IssueRec, RepoRec } from "../types.js";
import { mergePull } from "./merge.js";
import { repoDir } from "./objects.js";
import { paginate } from "./paginate.js";

/** The pull request `{pull_number}` of the repository, or 404. */
export function pullFor(ctx: Ctx, repo: RepoRec): IssueRec {
  const issue = ctx.core.store.issue(repo, Number(ctx.params.pull_number));
  if (!issue?.pull) throw notFound();
  return issue;
}

function parseHead(repo: RepoRec, head: string): { owner: string; branch: string } {
  const colon = head.indexOf(":");
  return colon >= 0
    ? { owner: head.slice(0, colon), branch: head.slice(colon + 1) }
    : { owner: repo.ownerLogin, branch: head };
}

async function createPull(ctx: Ctx) {
  const repo = repoFor(ctx, "read");
  const me = actor(ctx);
  const { title, head, base, body, draft } = ctx.body;
  if (typeof head !== "string") throw missingField("PullRequest", "head");
  if (typeof base !== "string") throw missingField("PullRequest", "base");
  if (typeof title !== "string" || title.trim() === "") throw missingField("PullRequest", "title");
  const dir = repoDir(ctx, repo);
  const h = parseHead(repo, head);
  // `head: "user:branch"` names a branch of `user`'s repository in this one's fork network.
  const headRepo = networkRepoOf(ctx.core, repo, h.owner);
  const headSha = headRepo && (await ctx.core.git.resolve(repoDir(ctx, headRepo), `refs/heads/${h.branch}`));
  if (headRepo && headSha && headRepo.id !== repo.id) await copyHead(ctx.core, repo, headRepo, headSha);
  const baseSha = await ctx.core.git.resolve(dir, `refs/heads/${base}`);
  const errors = [
    ...(baseSha ? [] : [{ resource: "PullRequest", field: "base", code: "invalid" }]),
    ...(headSha ? [] : [{ resource: "PullRequest", field: "head", code: "invalid" }]),
  ];
  if (errors.length || !headSha || !baseSha || !headRepo)
    throw new ApiError(422, "Validation Failed", { errors });
  const ahead = (await ctx.core.git.revList(dir, headSha, [baseSha])).length;
  // From here to the pull request's insertion nothing awaits: of two requests for one branch at once,
  // the second finds the first's, as GitHub answers it.
  const dup = ctx.core.store.data.issues.find(
    (i) =>
      i.repoId === repo.id &&
      i.state === "open" &&
      i.pull?.headRepoId === headRepo.id &&
      i.pull.headRef === h.branch &&
      i.pull.baseRef === base,
  );
  if (dup)
    throw customError("PullRequest", `A pull request already exists for ${headRepo.ownerLogin}:${h.branch}.`);
  if (ahead === 0) {
    throw customError("PullRequest", `No commits between ${base} and ${h.branch}`);
  }
  const now = ctx.core.store.timestamp();
  const issue: IssueRec = {
    id: ctx.core.store.nextId(),
    pullId: ctx.core.store.nextId(),
    repoId: repo.id,
    number: repo.nextNumber++,
    title,
    body: typeof body === "string" ? body : null,
    userLogin: me.login,
    state: "open",
    stateReason: null,
    labels: [],
    assignees: [],
    locked: false,
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    pull: {
      headRef: h.branch,
      headSha,
      headRepoId: headRepo.id,
      baseRef: base,
      draft: draft === true,
      merged: false,
      mergedAt: null,
      mergedByLogin: null,
      mergeCommitSha: null,
      maintainerCanModify: ctx.body.maintainer_can_modify !== false,
    },
  };
  ctx.core.store.data.issues.push(issue);
  if (headRepo.id !== repo.id) await copyHead(ctx.core, repo, headRepo, headSha, issue.number);
  const shape = await fullPull(ctx.core, repo, issue);
  emitPullEvent(ctx.core, repo, "opened", shape, issue.number, me);
  return created(shape);
}

async function updatePull(ctx: Ctx) {
  const repo = repoFor(ctx, "read");
  const me = actor(ctx);
  const issue = pullFor(ctx, repo);
  const pull = issue.pull!;
  const changes: Record<string, unknown> = {};
  const b = ctx.body;
  if (typeof b.title === "string" && b.title !== issue.title) {
    changes.title = { from: issue.title };
    issue.title = b.title;
  }
  if ((typeof b.body === "string" || b.body === null) && b.body !== issue.body) {
    changes.body = { from: issue.body ?? "" };
    issue.body = b.body;
  }
  if (typeof b.base === "string" && b.base !== pull.baseRef) {
    const dir = repoDir(ctx, repo);
    const baseSha = await ctx.core.git.resolve(dir, `refs/heads/${b.base}`);
    if (!baseSha) throw invalidField("PullRequest", "base");
    const oldSha = (await ctx.core.git.resolve(dir, `refs/heads/${pull.baseRef}`)) ?? baseSha;
    changes.base = { ref: { from: pull.baseRef }, sha: { from: oldSha } };
    pull.baseRef = b.base;
  }
  if (typeof b.maintainer_can_modify === "boolean") pull.maintainerCanModify = b.maintainer_can_modify;
  let stateAction: "closed" | "reopened" | undefined;
  if (b.state !== undefined) {
    if (b.state !== "open" && b.state !== "closed")
      throw invalidField("PullRequest", "state", String(b.state));
    if (b.state !== issue.state) {
      if (pull.merged) throw customError("PullRequest", "Cannot reopen a merged pull request", "state");
      if (b.state === "open") {
        const headRepo = ctx.core.store.repoById(pull.headRepoId);
        const sha =
          headRepo && (await ctx.core.git.resolve(repoDir(ctx, headRepo), `refs/heads/${pull.headRef}`));
        // the check for another open pull request of the branch and the reopening with no await between
        // (as in createPull)
        const dup = ctx.core.store.data.issues.find(
          (i) =>
            i !== issue &&
            i.repoId === repo.id &&
            i.state === "open" &&
            i.pull?.headRepoId === pull.headRepoId &&
            i.pull?.headRef === pull.headRef &&
            i.pull.baseRef === pull.baseRef,
        );
        if (dup) {
          throw customError(
            "PullRequest",
            `A pull request already exists for ${ctx.core.store.repoById(pull.headRepoId)?.ownerLogin ?? repo.ownerLogin}:${pull.headRef}.`,
          );
        }
        if (!sha || !headRepo)
          throw customError("PullRequest", "state cannot be changed. The head branch was deleted.", "state");
        issue.state = "open";
        if (headRepo.id !== repo.id) await copyHead(ctx.core, repo, headRepo, sha, issue.number);
        pull.headSha = sha;
      }
      issue.state = b.state;
      issue.closedAt = b.state === "closed" ? ctx.core.store.timestamp() : null;
      stateAction = b.state === "closed" ? "closed" : "reopened";
    }
  }
  issue.updatedAt = ctx.core.store.timestamp();
  const shape = await fullPull(ctx.core, repo, issue);
  if (Object.keys(changes).length)
    emitPullEvent(ctx.core, repo, "edited", shape, issue.number, me, { changes });
  if (stateAction) emitPullEvent(ctx.core, repo, stateAction, shape, issue.number, me);
  return ok(shape);
}

/** Pull requests: create, list, get, update, merge, files, commits. */
export function pullRoutes(r: Router): void {
  r.add("POST", "/repos/{owner}/{repo}/pulls", "token", createPull);

  r.add("GET", "/repos/{owner}/{repo}/pulls", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const state = ctx.query.get("state") ?? "open";
    const head = ctx.query.get("head");
    const base = ctx.query.get("base");
    const sort = ctx.query.get("sort") ?? "created";
    const direction = ctx.query.get("direction") ?? (sort === "created" ? "desc" : "desc");
    let list = ctx.core.store.data.issues.filter(
      (i) => i.repoId === repo.id && i.pull && (state === "all" || i.state === state),
    );
    if (head) {
      const h = parseHead(repo, head);
      list = list.filter(
        (i) =>
          i.pull!.headRef === h.branch &&
          ctx.core.store.repoById(i.pull!.headRepoId)?.ownerLogin.toLowerCase() === h.owner.toLowerCase(),
      );
    }
    if (base) list = list.filter((i) => i.pull!.baseRef === base);
    const key = (i: IssueRec) =>
      (sort === "updated" ? i.updatedAt : i.createdAt) + String(i.number).padStart(9, "0");
    list.sort((a, b) => (key(a) < key(b) ? -1 : 1));
    if (direction === "desc") list.reverse();
    const dir = repoDir(ctx, repo);
    const baseShas = new Map<string, string>();
    for (const i of list) {
      const ref = i.pull!.baseRef;
      if (!baseShas.has(ref))
        baseShas.set(ref, (await ctx.core.git.resolve(dir, `refs/heads/${ref}`)) ?? i.pull!.headSha);
    }
    return paginate(ctx, list, (i) => pullShape(ctx.core, repo, i, baseShas.get(i.pull!.baseRef)!));
  });

  r.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "token", async (ctx) => {
    const repo = repoFor(ctx);
    return ok(await fullPull(ctx.core, repo, pullFor(ctx, repo)));
  });

  r.add("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", "token", updatePull);

  r.add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    return ok(await mergePull(ctx, repo, pullFor(ctx, repo)));
  });

  r.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", "token", (ctx) => {
    const repo = repoFor(ctx);
    if (!pullFor(ctx, repo).pull!.merged) throw notFound();
    return noContent();
  });

  r.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const issue = pullFor(ctx, repo);
    const dir = repoDir(ctx, repo);
    const { pull } = issue;
    const base = pull!.merged
      ? (await ctx.core.git.commit(dir, pull!.mergeCommitSha!))?.parents[0]
      : await ctx.core.git.resolve(dir, `refs/heads/${pull!.baseRef}`);
    const mergeBase = (base && (await ctx.core.git.mergeBase(dir, base, pull!.headSha))) ?? base ?? null;
    const files = await ctx.core.git.diff(dir, mergeBase, pull!.headSha);
    return paginate(ctx, files.slice(0, 3000), (f) => diffEntry(ctx.core, repo, pull!.headSha, f));
  });

  r.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/commits", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const { pull } = pullFor(ctx, repo);
    const dir = repoDir(ctx, repo);
    const base = await ctx.core.git.resolve(dir, `refs/heads/${pull!.baseRef}`);
    const mergeBase = base ? await ctx.core.git.mergeBase(dir, base, pull!.headSha) : null;
    const shas = await ctx.core.git.revList(
      dir,
      pull!.headSha,
      mergeBase && !pull!.merged ? [mergeBase] : [],
    );
    const commits = await Promise.all(shas.slice(0, 250).map((s) => ctx.core.git.commit(dir, s)));
    return paginate(ctx, commits, (c) => restCommitShape(ctx.core, repo, c!));
  });

  r.add("GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const sha = ctx.params.commit_sha!;
    const list = ctx.core.store.data.issues.filter(
      (i) => i.repoId === repo.id && i.pull && (i.pull.headSha === sha || i.pull.mergeCommitSha === sha),
    );
    const dir = repoDir(ctx, repo);
    const out = [];
    for (const i of list) {
      out.push(
        pullShape(
          ctx.core,
          repo,
          i,
          (await ctx.core.git.resolve(dir, `refs/heads/${i.pull!.baseRef}`)) ?? sha,
        ),
      );
    }
    return paginate(ctx, out);
  });
}
