import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { ApiError, created, noContent, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { REACTIONS, reactionShape } from "../shapes/issue.js";
import type { RepoRec } from "../types.js";
import { issueFor } from "./issues.js";
import { paginate } from "./paginate.js";

type SubjectOf = (ctx: Ctx, repo: RepoRec) => string;

const commentSubject: SubjectOf = (ctx, repo) => {
  const c = ctx.core.store.data.comments.find(
    (x) => x.id === Number(ctx.params.comment_id) && x.repoId === repo.id,
  );
  if (!c) throw notFound();
  return `comment:${c.id}`;
};

const issueSubject: SubjectOf = (ctx, repo) => `issue:${issueFor(ctx, repo).id}`;

function routesFor(r: Router, base: string, subjectOf: SubjectOf): void {
  r.add("POST", base, "token", (ctx) => {
    const repo = repoFor(ctx, "read");
    const subject = subjectOf(ctx, repo);
    const me = actor(ctx);
    const content = ctx.body.content;
    if (typeof content !== "string" || !(REACTIONS as readonly string[]).includes(content)) {
      throw new ApiError(422, "Validation Failed", {
        errors: [{ resource: "Reaction", code: "invalid", field: "content" }],
      });
    }
    const existing = ctx.core.store.data.reactions.find(
      (x) => x.subject === subject && x.userLogin === me.login && x.content === content,
    );
    if (existing) return ok(reactionShape(ctx.core, existing));
    const rec = {
      id: ctx.core.store.nextId(),
      subject,
      userLogin: me.login,
      content,
      createdAt: ctx.core.store.timestamp(),
    };
    ctx.core.store.data.reactions.push(rec);
    return created(reactionShape(ctx.core, rec));
  });

  r.add("GET", base, "token", (ctx) => {
    const repo = repoFor(ctx);
    const subject = subjectOf(ctx, repo);
    const content = ctx.query.get("content");
    const list = ctx.core.store.data.reactions.filter(
      (x) => x.subject === subject && (!content || x.content === content),
    );
    return paginate(ctx, list, (x) => reactionShape(ctx.core, x));
  });

  r.add("DELETE", `${base}/{reaction_id}`, "token", (ctx) => {
    const repo = repoFor(ctx, "read");
    const subject = subjectOf(ctx, repo);
    const id = Number(ctx.params.reaction_id);
    const before = ctx.core.store.data.reactions.length;
    ctx.core.store.data.reactions = ctx.core.store.data.reactions.filter(
      (x) => !(x.subject === subject && x.id === id),
    );
    if (ctx.core.store.data.reactions.length === before) throw notFound();
    return noContent();
  });
}

/** Reactions on issue comments and on issues (pull requests included). */
export function reactionRoutes(r: Router): void {
  routesFor(r, "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", commentSubject);
  routesFor(r, "/repos/{owner}/{repo}/issues/{issue_number}/reactions", issueSubject);
}
