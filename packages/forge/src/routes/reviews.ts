import { actor, repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { emitRepoEvent } from "../events.js";
import { ApiError, invalidField, nodeId, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { authorAssociation, repoApi, repoHtml } from "../shapes/issue.js";
import { pullShape } from "../shapes/pull.js";
import { userByLogin } from "../shapes/user.js";
import type { IssueRec, RepoRec, ReviewRec } from "../types.js";
import { repoDir } from "./objects.js";
import { paginate } from "./paginate.js";
import { pullFor } from "./pulls.js";

const EVENTS: Record<string, ReviewRec["state"]> = {
  APPROVE: "APPROVED",
  REQUEST_CHANGES: "CHANGES_REQUESTED",
  COMMENT: "COMMENTED",
};

function reviewShape(ctx: Ctx, repo: RepoRec, rv: ReviewRec): Record<string, unknown> {
  const html = `${repoHtml(ctx.core, repo)}/pull/${rv.number}#pullrequestreview-${rv.id}`;
  const prUrl = `${repoApi(ctx.core, repo)}/pulls/${rv.number}`;
  return {
    id: rv.id,
    node_id: nodeId("PullRequestReview", rv.id),
    user: userByLogin(ctx.core, rv.userLogin),
    body: rv.body,
    state: rv.state,
    html_url: html,
    pull_request_url: prUrl,
    author_association: authorAssociation(ctx.core, repo, rv.userLogin),
    _links: { html: { href: html }, pull_request: { href: prUrl } },
    ...(rv.submittedAt ? { submitted_at: rv.submittedAt } : {}),
    commit_id: rv.commitId,
  };
}

async function submitted(ctx: Ctx, repo: RepoRec, issue: IssueRec, rv: ReviewRec): Promise<void> {
  const baseSha =
    (await ctx.core.git.resolve(repoDir(ctx, repo), `refs/heads/${issue.pull!.baseRef}`)) ?? rv.commitId;
  const review = reviewShape(ctx, repo, rv);
  emitRepoEvent(
    ctx.core,
    repo,
    "pull_request_review",
    {
      action: "submitted",
      review: { ...review, state: rv.state.toLowerCase() },
      pull_request: pullShape(ctx.core, repo, issue, baseSha),
    },
    actor(ctx),
  );
}

function validateEvent(ctx: Ctx, issue: IssueRec, event: string, body: string): ReviewRec["state"] {
  const state = EVENTS[event];
  if (!state) throw invalidField("PullRequestReview", "event", event);
  const me = actor(ctx);
  if (state === "APPROVED" && issue.userLogin === me.login) {
    throw new ApiError(422, "Unprocessable Entity", {
      errors: ["Review Can not approve your own pull request"],
    });
  }
  if (state === "CHANGES_REQUESTED" && issue.userLogin === me.login) {
    throw new ApiError(422, "Unprocessable Entity", {
      errors: ["Review Can not request changes on your own pull request"],
    });
  }
  if (state !== "APPROVED" && body === "") {
    throw new ApiError(422, "Unprocessable Entity", {
      errors: [`Review body is required for ${event} events`],
    });
  }
  return state;
}

/** Pull request reviews: create (submitted or pending), submit, list, get. */
export function reviewRoutes(r: Router): void {
  r.add("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "token", async (ctx) => {
    const repo = repoFor(ctx, "read");
    const issue = pullFor(ctx, repo);
    const me = actor(ctx);
    const body = typeof ctx.body.body === "string" ? ctx.body.body : "";
    const event = typeof ctx.body.event === "string" ? ctx.body.event : undefined;
    const state = event ? validateEvent(ctx, issue, event, body) : "PENDING";
    const rv: ReviewRec = {
      id: ctx.core.store.nextId(),
      repoId: repo.id,
      number: issue.number,
      userLogin: me.login,
      body,
      state,
      commitId: typeof ctx.body.commit_id === "string" ? ctx.body.commit_id : issue.pull!.headSha,
      submittedAt: state === "PENDING" ? null : ctx.core.store.timestamp(),
    };
    ctx.core.store.data.reviews.push(rv);
    if (state !== "PENDING") await submitted(ctx, repo, issue, rv);
    return ok(reviewShape(ctx, repo, rv));
  });

  r.add(
    "POST",
    "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events",
    "token",
    async (ctx) => {
      const repo = repoFor(ctx, "read");
      const issue = pullFor(ctx, repo);
      const rv = ctx.core.store.data.reviews.find(
        (x) => x.id === Number(ctx.params.review_id) && x.repoId === repo.id,
      );
      if (!rv) throw notFound();
      if (rv.state !== "PENDING")
        throw new ApiError(422, "Unprocessable Entity", { errors: ["Can not submit a non-pending review"] });
      if (typeof ctx.body.body === "string") rv.body = ctx.body.body;
      rv.state = validateEvent(ctx, issue, String(ctx.body.event ?? ""), rv.body);
      rv.submittedAt = ctx.core.store.timestamp();
      await submitted(ctx, repo, issue, rv);
      return ok(reviewShape(ctx, repo, rv));
    },
  );

  r.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "token", (ctx) => {
    const repo = repoFor(ctx);
    const issue = pullFor(ctx, repo);
    const list = ctx.core.store.data.reviews.filter((x) => x.repoId === repo.id && x.number === issue.number);
    return paginate(ctx, list, (x) => reviewShape(ctx, repo, x));
  });

  r.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}", "token", (ctx) => {
    const repo = repoFor(ctx);
    pullFor(ctx, repo);
    const rv = ctx.core.store.data.reviews.find(
      (x) => x.id === Number(ctx.params.review_id) && x.repoId === repo.id,
    );
    if (!rv) throw notFound();
    return ok(reviewShape(ctx, repo, rv));
  });
}
