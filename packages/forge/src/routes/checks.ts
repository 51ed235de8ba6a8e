import { actor, repoFor, requireApp } from "../access.js";
import type { Ctx } from "../context.js";
import { emitRepoEvent } from "../events.js";
import { ApiError, created, invalidField, missingField, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { checkRunShape, checkSuiteShape } from "../shapes/checks.js";
import type { AnnotationRec, CheckRunRec, CheckSuiteRec, RepoRec } from "../types.js";
import { commitOf, repoDir } from "./objects.js";
import { paginate } from "./paginate.js";

/** The Checks API accepts at most 50 annotations per request. */
const MAX_ANNOTATIONS = 50;
const STATUSES = ["queued", "in_progress", "completed", "waiting", "requested", "pending"];
const CONCLUSIONS = [
  "action_required",
  "cancelled",
  "failure",
  "neutral",
  "success",
  "skipped",
  "stale",
  "timed_out",
];
const LEVELS = ["notice", "warning", "failure"];

/** The suite of `appId` for a commit, created on first use. */
function suiteFor(ctx: Ctx, repo: RepoRec, appId: number, sha: string, branch: string | null): CheckSuiteRec {
  let suite = ctx.core.store.data.checkSuites.find(
    (s) => s.repoId === repo.id && s.appId === appId && s.headSha === sha,
  );
  if (!suite) {
    const now = ctx.core.store.timestamp();
    suite = {
      id: ctx.core.store.nextId(),
      repoId: repo.id,
      appId,
      headSha: sha,
      headBranch: branch,
      before: null,
      after: sha,
      createdAt: now,
      updatedAt: now,
    };
    ctx.core.store.data.checkSuites.push(suite);
  }
  return suite;
}

function parseAnnotations(raw: unknown): AnnotationRec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalidField("CheckRun", "output.annotations");
  if (raw.length > MAX_ANNOTATIONS) {
    throw new ApiError(
      422,
      `Invalid request.\n\nNo more than ${MAX_ANNOTATIONS} items are allowed; ${raw.length} were supplied.`,
    );
  }
  return raw.map((a: Record<string, unknown>) => {
    for (const f of ["path", "start_line", "end_line", "annotation_level", "message"]) {
      if (a?.[f] === undefined) throw new ApiError(422, `Invalid request.\n\n"${f}" wasn't supplied.`);
    }
    if (!LEVELS.includes(String(a.annotation_level))) throw invalidField("CheckRun", "annotation_level");
    return {
      path: String(a.path),
      start_line: Number(a.start_line),
      end_line: Number(a.end_line),
      start_column: typeof a.start_column === "number" ? a.start_column : null,
      end_column: typeof a.end_column === "number" ? a.end_column : null,
      annotation_level: String(a.annotation_level),
      message: String(a.message),
      title: typeof a.title === "string" ? a.title : null,
      raw_details: typeof a.raw_details === "string" ? a.raw_details : null,
    };
  });
}

function applyFields(ctx: Ctx, run: CheckRunRec): void {
  const b = ctx.body;
  if (typeof b.name === "string") run.name = b.name;
  if (typeof b.details_url === "string") run.detailsUrl = b.details_url;
  if (typeof b.external_id === "string") run.externalId = b.external_id;
  if (typeof b.started_at === "string") run.startedAt = b.started_at;
  if (b.status !== undefined) {
    if (!STATUSES.includes(String(b.status))) throw invalidField("CheckRun", "status", String(b.status));
    run.status = String(b.status);
  }
  if (b.conclusion !== undefined && b.conclusion !== null) {
    if (!CONCLUSIONS.includes(String(b.conclusion)))
      throw invalidField("CheckRun", "conclusion", String(b.conclusion));
    run.conclusion = String(b.conclusion);
    run.status = "completed";
  }
  if (run.status === "completed") {
    if (!run.conclusion) throw missingField("CheckRun", "conclusion");
    run.completedAt =
      typeof b.completed_at === "string" ? b.completed_at : (run.completedAt ?? ctx.core.store.timestamp());
  }
  if (b.output !== undefined) {
    const o = b.output as Record<string, unknown>;
    if (typeof o !== "object" || o === null) throw invalidField("CheckRun", "output");
    for (const f of ["title", "summary"] as const) {
      if (typeof o[f] !== "string" && run.output[f] === null) {
        throw new ApiError(422, `Invalid request.\n\n"${f}" wasn't supplied.`);
      }
    }
    const annotations = parseAnnotations(o.annotations);
    if (typeof o.title === "string") run.output.title = o.title;
    if (typeof o.summary === "string") run.output.summary = o.summary;
    if (typeof o.text === "string") run.output.text = o.text;
    run.annotations.push(...annotations);
  }
}

/**
 * GitHub sends check_run `created` and `completed` to every app installed on the repository (with the
 * checks permission, which the forge's apps all have), whichever app owns the run: a merge bot acts on
 * CI's checks. `rerequested` goes to the run's own app only.
 */
async function emitRunEvent(ctx: Ctx, repo: RepoRec, run: CheckRunRec, action: string): Promise<void> {
  const check_run = checkRunShape(ctx.core, repo, run, { webhook: true });
  emitRepoEvent(ctx.core, repo, "check_run", { action, check_run }, actor(ctx));
  if (action === "completed") await emitSuiteCompleted(ctx, repo, run.suiteId);
}

/** When the last run of a suite completes, every installed app gets `check_suite.completed`. */
async function emitSuiteCompleted(ctx: Ctx, repo: RepoRec, suiteId: number): Promise<void> {
  const suite = ctx.core.store.data.checkSuites.find((s) => s.id === suiteId);
  const runs = ctx.core.store.data.checkRuns.filter((r) => r.suiteId === suiteId);
  if (!suite || runs.some((r) => r.status !== "completed")) return;
  const head = await ctx.core.git.commit(repoDir(ctx, repo), suite.headSha);
  const check_suite = checkSuiteShape(ctx.core, repo, suite, head, { webhook: true });
  emitRepoEvent(ctx.core, repo, "check_suite", { action: "completed", check_suite }, actor(ctx));
}

function runFor(ctx: Ctx, repo: RepoRec): CheckRunRec {
  const run = ctx.core.store.data.checkRuns.find(
    (r) => r.id === Number(ctx.params.check_run_id) && r.repoId === repo.id,
  );
  if (!run) throw notFound();
  return run;
}

/** Check runs and suites: create/update with annotations, list for a ref, rerequest. */
export function checkRoutes(r: Router): void {
  r.add("POST", "/repos/{owner}/{repo}/check-runs", "token", async (ctx) => {
    requireApp(ctx);
    const repo = repoFor(ctx, "write");
    if (typeof ctx.body.name !== "string" || ctx.body.name === "") throw missingField("CheckRun", "name");
    if (typeof ctx.body.head_sha !== "string") throw missingField("CheckRun", "head_sha");
    const sha = await ctx.core.git.resolve(repoDir(ctx, repo), ctx.body.head_sha);
    if (!sha || sha !== ctx.body.head_sha)
      throw new ApiError(422, `No commit found for SHA: ${ctx.body.head_sha}`);
    const appId = ctx.principal.kind === "installation" ? ctx.principal.app.id : 0;
    const suite = suiteFor(ctx, repo, appId, sha, null);
    const run: CheckRunRec = {
      id: ctx.core.store.nextId(),
      repoId: repo.id,
      appId,
      suiteId: suite.id,
      headSha: sha,
      name: ctx.body.name,
      status: "queued",
      conclusion: null,
      startedAt: ctx.core.store.timestamp(),
      completedAt: null,
      externalId: "",
      detailsUrl: null,
      output: { title: null, summary: null, text: null },
      annotations: [],
    };
    applyFields(ctx, run);
    ctx.core.store.data.checkRuns.push(run);
    suite.updatedAt = ctx.core.store.timestamp();
    await emitRunEvent(ctx, repo, run, "created");
    if (run.status === "completed") await emitRunEvent(ctx, repo, run, "completed");
    return created(checkRunShape(ctx.core, repo, run));
  });

  r.add("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "token", async (ctx) => {
    requireApp(ctx);
    const repo = repoFor(ctx, "write");
    const run = runFor(ctx, repo);
    const next = structuredClone(run);
    applyFields(ctx, next);
    const completing = run.status !== "completed" && next.status === "completed";
    Object.assign(run, next);
    if (completing) await emitRunEvent(ctx, repo, run, "completed");
    return ok(checkRunShape(ctx.core, repo, run));
  });

  r.add("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "token", (ctx) => {
    const repo = repoFor(ctx);
    return ok(checkRunShape(ctx.core, repo, runFor(ctx, repo)));
  });

  r.add("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", "token", (ctx) => {
    const repo = repoFor(ctx);
    const run = runFor(ctx, repo);
    const blob = `${ctx.core.urls.web}/${repo.ownerLogin}/${repo.name}/blob/${run.headSha}`;
    return paginate(ctx, run.annotations, (a) => ({ ...a, blob_href: `${blob}/${a.path}` }));
  });

  r.add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const sha = await commitOf(ctx, repo, ctx.params.ref!, 404);
    const name = ctx.query.get("check_name");
    const status = ctx.query.get("status");
    let runs = ctx.core.store.data.checkRuns
      .filter(
        (x) =>
          x.repoId === repo.id &&
          x.headSha === sha &&
          (!name || x.name === name) &&
          (!status || x.status === status),
      )
      .sort((a, b) => b.id - a.id);
    if ((ctx.query.get("filter") ?? "latest") === "latest") {
      const seen = new Set<string>();
      runs = runs.filter((x) => {
        const key = `${x.appId}:${x.name}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
    return paginate(
      ctx,
      runs,
      (x) => checkRunShape(ctx.core, repo, x),
      (page, total) => ({ total_count: total, check_runs: page }),
    );
  });

  r.add("POST", "/repos/{owner}/{repo}/check-runs/{check_run_id}/rerequest", "token", (ctx) => {
    const repo = repoFor(ctx, "write");
    const run = runFor(ctx, repo);
    emitRepoEvent(
      ctx.core,
      repo,
      "check_run",
      { action: "rerequested", check_run: checkRunShape(ctx.core, repo, run, { webhook: true }) },
      actor(ctx),
      run.appId,
    );
    return created({});
  });

  r.add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-suites", "token", async (ctx) => {
    const repo = repoFor(ctx);
    const sha = await commitOf(ctx, repo, ctx.params.ref!, 404);
    const head = await ctx.core.git.commit(repoDir(ctx, repo), sha);
    const suites = ctx.core.store.data.checkSuites.filter((s) => s.repoId === repo.id && s.headSha === sha);
    return paginate(
      ctx,
      suites,
      (s) => checkSuiteShape(ctx.core, repo, s, head),
      (page, total) => ({ total_count: total, check_suites: page }),
    );
  });

  r.add("POST", "/repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest", "token", async (ctx) => {
    const repo = repoFor(ctx, "write");
    const suite = ctx.core.store.data.checkSuites.find(
      (s) => s.id === Number(ctx.params.check_suite_id) && s.repoId === repo.id,
    );
    if (!suite) throw notFound();
    const head = await ctx.core.git.commit(repoDir(ctx, repo), suite.headSha);
    emitRepoEvent(
      ctx.core,
      repo,
      "check_suite",
      { action: "rerequested", check_suite: checkSuiteShape(ctx.core, repo, suite, head, { webhook: true }) },
      actor(ctx),
      suite.appId,
    );
    return created({});
  });
}
