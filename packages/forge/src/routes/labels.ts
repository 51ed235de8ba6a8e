import { repoFor } from "../access.js";
import type { Ctx } from "../context.js";
import { ApiError, created, customError, missingField, noContent, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { labelShape } from "../shapes/issue.js";
import type { RepoRec } from "../types.js";
import { emitIssueEvent, ensureLabel, issueFor } from "./issues.js";
import { paginate } from "./paginate.js";

function labelNames(ctx: Ctx): string[] {
  const raw = Array.isArray(ctx.body.labels)
    ? ctx.body.labels
    : Array.isArray(ctx.body)
      ? ctx.body
      : undefined;
  if (!raw) throw missingField("Label", "labels");
  return raw.map((l) => (typeof l === "object" && l ? String((l as { name: unknown }).name) : String(l)));
}

function labelFor(ctx: Ctx, repo: RepoRec) {
  const l = repo.labels.find((x) => x.name.toLowerCase() === (ctx.params.name ?? "").toLowerCase());
  if (!l) throw notFound();
  return l;
}

/** Repository labels and the labels of an issue or pull request. */
export function labelRoutes(r: Router): void {
  r.add("GET", "/repos/{owner}/{repo}/labels", "token", (ctx) => {
    const repo = repoFor(ctx);
    return paginate(ctx, repo.labels, (l) => labelShape(ctx.core, repo, l));
  });

  r.add("POST", "/repos/{owner}/{repo}/labels", "token", (ctx) => {
    const repo = repoFor(ctx, "write");
    const { name, color, description } = ctx.body;
    if (typeof name !== "string" || name === "") throw missingField("Label", "name");
    if (repo.labels.some((l) => l.name.toLowerCase() === name.toLowerCase())) {
      throw new ApiError(422, "Validation Failed", {
        errors: [{ resource: "Label", code: "already_exists", field: "name" }],
      });
    }
    if (color !== undefined && (typeof color !== "string" || !/^[0-9a-fA-F]{6}$/.test(color))) {
      throw new ApiError(422, "Validation Failed", {
        errors: [{ resource: "Label", code: "invalid", field: "color" }],
      });
    }
    const l = ensureLabel(ctx, repo, name);
    if (typeof color === "string") l.color = color.toLowerCase();
    if (typeof description === "string") l.description = description;
    return created(labelShape(ctx.core, repo, l));
  });

  r.add("GET", "/repos/{owner}/{repo}/labels/{name}", "token", (ctx) => {
    const repo = repoFor(ctx);
    return ok(labelShape(ctx.core, repo, labelFor(ctx, repo)));
  });

  r.add("PATCH", "/repos/{owner}/{repo}/labels/{name}", "token", (ctx) => {
    const repo = repoFor(ctx, "write");
    const l = labelFor(ctx, repo);
    const old = l.name;
    if (typeof ctx.body.new_name === "string") l.name = ctx.body.new_name;
    if (typeof ctx.body.color === "string") l.color = ctx.body.color.toLowerCase();
    if (typeof ctx.body.description === "string") l.description = ctx.body.description;
    for (const i of ctx.core.store.data.issues) {
      if (i.repoId === repo.id)
        i.labels = i.labels.map((n) => (n.toLowerCase() === old.toLowerCase() ? l.name : n));
    }
    return ok(labelShape(ctx.core, repo, l));
  });

  r.add("DELETE", "/repos/{owner}/{repo}/labels/{name}", "token", (ctx) => {
    const repo = repoFor(ctx, "write");
    const l = labelFor(ctx, repo);
    repo.labels = repo.labels.filter((x) => x !== l);
    for (const i of ctx.core.store.data.issues) {
      if (i.repoId === repo.id) i.labels = i.labels.filter((n) => n.toLowerCase() !== l.name.toLowerCase());
    }
    return noContent();
  });

  r.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "token", (ctx) => {
    const repo = repoFor(ctx);
    const issue = issueFor(ctx, repo);
    return paginate(ctx, issue.labels, (n) => labelShape(ctx.core, repo, ensureLabel(ctx, repo, n)));
  });

  const addLabels = (replace: boolean) => async (ctx: Ctx) => {
    const repo = repoFor(ctx, "triage");
    const issue = issueFor(ctx, repo);
    const names = labelNames(ctx);
    if (names.some((n) => n.trim() === "")) throw customError("Label", "Label name can't be blank", "name");
    const before = issue.labels;
    const next = replace ? [] : [...before];
    for (const n of names) {
      const l = ensureLabel(ctx, repo, n);
      if (!next.some((x) => x.toLowerCase() === l.name.toLowerCase())) next.push(l.name);
    }
    issue.labels = next;
    issue.updatedAt = ctx.core.store.timestamp();
    const label = (name: string) => labelShape(ctx.core, repo, ensureLabel(ctx, repo, name));
    for (const n of before.filter((x) => !next.includes(x)))
      await emitIssueEvent(ctx, repo, issue, "unlabeled", { label: label(n) });
    for (const n of next.filter((x) => !before.includes(x)))
      await emitIssueEvent(ctx, repo, issue, "labeled", { label: label(n) });
    return ok(issue.labels.map(label));
  };
  r.add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "token", addLabels(false));
  r.add("PUT", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "token", addLabels(true));

  r.add("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", "token", async (ctx) => {
    const repo = repoFor(ctx, "triage");
    const issue = issueFor(ctx, repo);
    const name = issue.labels.find((n) => n.toLowerCase() === (ctx.params.name ?? "").toLowerCase());
    if (!name) throw new ApiError(404, "Label does not exist");
    issue.labels = issue.labels.filter((n) => n !== name);
    issue.updatedAt = ctx.core.store.timestamp();
    const label = (n: string) => labelShape(ctx.core, repo, ensureLabel(ctx, repo, n));
    await emitIssueEvent(ctx, repo, issue, "unlabeled", { label: label(name) });
    return ok(issue.labels.map(label));
  });

  r.add("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "token", async (ctx) => {
    const repo = repoFor(ctx, "triage");
    const issue = issueFor(ctx, repo);
    const removed = issue.labels;
    issue.labels = [];
    for (const n of removed) {
      await emitIssueEvent(ctx, repo, issue, "unlabeled", {
        label: labelShape(ctx.core, repo, ensureLabel(ctx, repo, n)),
      });
    }
    return noContent();
  });
}
