import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { emitPullEvent, emitRepoEvent } from "../events.js";
import { ApiError, created, invalidField, missingField, noContent, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { commentShape, issueShape } from "../shapes/issue.js";
import { fullPull } from "../shapes/pull.js";
import type { CommentRec, IssueRec, RepoRec } from "../types.js";
import { paginate } from "./paginate.js";

/** GitHub refuses bodies over 65,536 characters. */
const MAX_BODY = 65536;

export function issueFor(ctx: Ctx, repo: RepoRec): IssueRec {
  const issue = ctx.core.store.issue(repo, Number(ctx.params.issue_number));
  if (!issue) throw notFound();
  return issue;
}

function commentFor(ctx: Ctx, repo: RepoRec): CommentRec {
  const c = ctx.core.store.data.comments.find(
    (x) => x.id === Number(ctx.params.comment_id) && x.repoId === repo.id,
  );
  if (!c) throw notFound();
  return c;
}

function checkBody(body: unknown, resource: string): string {
  if (typeof body !== "string" || body === "") throw missingField(resource, "body");
  if (body.length > MAX_BODY) {
    throw new ApiError(422, "Validation Failed", {
      errors: [
        {
          resource,
          code: "custom",
          field: "body",
          message: `body is too long (maximum is ${MAX_BODY} characters)`,
        },
      ],
    });
  }
  return body;
}

/** Sends `issues.<action>`, or `pull_request.<action>` when the issue is a pull request. */
export async function emitIssueEvent(
  ctx: Ctx,
  repo: RepoRec,
  issue: IssueRec,
  action: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const me = actor(ctx);
  if (issue.pull) {
    emitPullEvent(ctx.core, repo, action, await fullPull(ctx.core, repo, issue), issue.number, me, extra);
  } else {
    emitRepoEvent(
      ctx.core,
      repo,
      "issues",
      { action, issue: issueShape(ctx.core, repo, issue), ...extra },
      me,
    );
  }
}

function emitCommentEvent(
  ctx: Ctx,
  repo: RepoRec,
  c: CommentRec,
  action: string,
  extra: Record<string, unknown> = {},
) {
  const issue = ctx.core.store.issue(repo, c.number)!;
  emitRepoEvent(
    ctx.core,
    repo,
    "issue_comment",
    { action, issue: issueShape(ctx.core, repo, issue), comment: commentShape(ctx.core, repo, c), ...extra },
    actor(ctx),
  );
}

/** Issues and issue (and pull request) comments. */
export function issueRoutes(r: Router): void {
  r.add("POST", "/repos/{owner}/{repo}/issues", "token", (ctx) => {
    const repo = repoFor(ctx, "read");
    const me = actor(ctx);
    if (typeof ctx.body.title !== "string" || ctx.body.title === "") throw missingField("Issue", "title");
    const now = ctx.core.store.timestamp();
    const issue: IssueRec = {
      id: ctx.core.store.nextId(),
      repoId: repo.id,
      number: repo.nextNumber++,
      title: ctx.body.title,
      body: typeof ctx.body.body === "string" ? checkBody(ctx.body.body, "Issue") : null,
      userLogin: me.login,
      state: "open",
      stateReason: null,
      labels: Array.isArray(ctx.body.labels)
        ? ctx.body.labels.map((l) => String(typeof l === "object" && l ? (l as { name: string }).name : l))
        : [],
      assignees: Array.isArray(ctx.body.assignees) ? ctx.body.assignees.map(String) : [],
      locked: false,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
    };
    for (const l of issue.labels) ensureLabel(ctx, repo, l);
    ctx.core.store.data.issues.push(issue);
    emitRepoEvent(
      ctx.core,
      repo,
      "issues",
      { action: "opened", issue: issueShape(ctx.core, repo, issue) },
      me,
    );
    return created(issueShape(ctx.core, repo, issue));
  });

  r.add("GET", "/repos/{owner}/{repo}/issues", "token", (ctx) => {
    const repo = repoFor(ctx);
    const state = ctx.query.get("state") ?? "open";
    const labels = ctx.query.get("labels")?.split(",").filter(Boolean) ?? [];
    const creator = ctx.query.get("creator");
    const list = ctx.core.store.data.issues
      .filter(
        (i) =>
          i.repoId === repo.id &&
          (state === "all" || i.state === state) &&
          labels.every((l) => i.labels.some((x) => x.toLowerCase() === l.toLowerCase())) &&
          (!creator || i.userLogin.toLowerCase() === creator.toLowerCase()),
      )
      .sort((a, b) => b.number - a.number);
    if (ctx.query.get("direction") === "asc") list.reverse();
    return paginate(ctx, list, (i) => issueShape(ctx.core, repo, i));
  });

  r.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}", "token", (ctx) => {
    const repo = repoFor(ctx);
    return ok(issueShape(ctx.core, repo, issueFor(ctx, repo)));
  });

  r.add("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", "token", async (ctx) => {
    const repo = repoFor(ctx, "triage");
    const issue = issueFor(ctx, repo);
    const b = ctx.body;
    const changes: Record<string, unknown> = {};
    if (typeof b.title === "string" && b.title !== issue.title) {
      changes.title = { from: issue.title };
      issue.title = b.title;
    }
    if ((typeof b.body === "string" || b.body === null) && b.body !== issue.body) {
      changes.body = { from: issue.body ?? "" };
      issue.body = b.body === null ? null : checkBody(b.body, "Issue");
    }
    if (Array.isArray(b.labels)) {
      issue.labels = b.labels.map(String);
      for (const l of issue.labels) ensureLabel(ctx, repo, l);
    }
    if (Array.isArray(b.assignees)) issue.assignees = b.assignees.map(String);
    let action: string | undefined;
    if (b.state !== undefined && b.state !== issue.state) {
      if (b.state !== "open" && b.state !== "closed") throw invalidField("Issue", "state", String(b.state));
      if (issue.pull?.merged)
        throw new ApiError(422, "Validation Failed", {
          errors: [
            {
              resource: "Issue",
              code: "custom",
              field: "state",
              message: "state cannot be changed. The pull request has been merged.",
            },
          ],
        });
      issue.state = b.state;
      issue.closedAt = b.state === "closed" ? ctx.core.store.timestamp() : null;
      issue.stateReason =
        b.state === "closed" ? ((b.state_reason as string | undefined) ?? "completed") : "reopened";
      action = b.state === "closed" ? "closed" : "reopened";
    }
    issue.updatedAt = ctx.core.store.timestamp();
    if (Object.keys(changes).length) await emitIssueEvent(ctx, repo, issue, "edited", { changes });
    if (action) await emitIssueEvent(ctx, repo, issue, action);
    return ok(issueShape(ctx.core, repo, issue));
  });

  r.add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "token", (ctx) => {
    const repo = repoFor(ctx, "read");
    const issue = issueFor(ctx, repo);
    const me = actor(ctx);
    if (
      issue.locked &&
      ctx.core.store.permission(repo, me.login) === "none" &&
      ctx.principal.kind !== "installation"
    ) {
      throw new ApiError(403, "Unable to create comment because issue is locked.");
    }
    const now = ctx.core.store.timestamp();
    const c: CommentRec = {
      id: ctx.core.store.nextId(),
      repoId: repo.id,
      number: issue.number,
      userLogin: me.login,
      body: checkBody(ctx.body.body, "IssueComment"),
      createdAt: now,
      updatedAt: now,
      appId: ctx.principal.kind === "installation" ? ctx.principal.app.id : null,
    };
    ctx.core.store.data.comments.push(c);
    emitCommentEvent(ctx, repo, c, "created");
    return created(commentShape(ctx.core, repo, c));
  });

  r.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "token", (ctx) => {
    const repo = repoFor(ctx);
    const issue = issueFor(ctx, repo);
    const since = ctx.query.get("since");
    const list = ctx.core.store.data.comments.filter(
      (c) => c.repoId === repo.id && c.number === issue.number && (!since || c.updatedAt >= since),
    );
    return paginate(ctx, list, (c) => commentShape(ctx.core, repo, c));
  });

  r.add("GET", "/repos/{owner}/{repo}/issues/comments", "token", (ctx) => {
    const repo = repoFor(ctx);
    const list = ctx.core.store.data.comments.filter((c) => c.repoId === repo.id);
    return paginate(ctx, list, (c) => commentShape(ctx.core, repo, c));
  });

  r.add("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "token", (ctx) => {
    const repo = repoFor(ctx);
    return ok(commentShape(ctx.core, repo, commentFor(ctx, repo)));
  });

  r.add("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "token", (ctx) => {
    const repo = repoFor(ctx, "read");
    const c = commentFor(ctx, repo);
    const me = actor(ctx);
    if (c.userLogin !== me.login && ctx.core.store.permission(repo, me.login) === "read") throw notFound();
    const from = c.body;
    c.body = checkBody(ctx.body.body, "IssueComment");
    c.updatedAt = ctx.core.store.timestamp();
    emitCommentEvent(ctx, repo, c, "edited", { changes: { body: { from } } });
    return ok(commentShape(ctx.core, repo, c));
  });

  r.add("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "token", (ctx) => {
    const repo = repoFor(ctx, "read");
    const c = commentFor(ctx, repo);
    emitCommentEvent(ctx, repo, c, "deleted");
    ctx.core.store.data.comments = ctx.core.store.data.comments.filter((x) => x !== c);
    return noContent();
  });
}

/** A repository label by name, created (grey, like GitHub) when missing. */
export function ensureLabel(ctx: Ctx, repo: RepoRec, name: string) {
  let l = repo.labels.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!l) {
    l = { id: ctx.core.store.nextId(), name, color: "ededed", description: null, default: false };
    repo.labels.push(l);
  }
  return l;
}
