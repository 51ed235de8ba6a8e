import type { ForgeCore } from "../context.js";
import type { GitCommit } from "../git.js";
import { nodeId } from "../http.js";
import type { CheckRunRec, CheckSuiteRec, RepoRec } from "../types.js";
import { appShape } from "./app.js";
import { repoApi, repoHtml } from "./issue.js";
import { repoShape } from "./repo.js";

/** Open pull requests whose head is `sha`, in the compact form checks carry. */
function checkPulls(core: ForgeCore, repo: RepoRec, sha: string): Record<string, unknown>[] {
  const api = repoApi(core, repo);
  const lite = { id: repo.id, url: api, name: repo.name };
  return core.store.data.issues
    .filter((i) => i.repoId === repo.id && i.state === "open" && i.pull?.headSha === sha)
    .map((i) => ({
      url: `${api}/pulls/${i.number}`,
      id: i.pullId ?? i.id,
      number: i.number,
      head: { ref: i.pull!.headRef, sha: i.pull!.headSha, repo: lite },
      base: { ref: i.pull!.baseRef, sha: i.pull!.headSha, repo: lite },
    }));
}

const SEVERITY = [
  "action_required",
  "failure",
  "timed_out",
  "cancelled",
  "stale",
  "startup_failure",
  "neutral",
  "skipped",
  "success",
];

/** A suite's status and conclusion, rolled up from its runs as GitHub does. */
function suiteState(runs: CheckRunRec[]): { status: string; conclusion: string | null } {
  if (runs.length === 0) return { status: "queued", conclusion: null };
  if (runs.some((r) => r.status !== "completed")) {
    return {
      status: runs.some((r) => r.status === "in_progress") ? "in_progress" : "queued",
      conclusion: null,
    };
  }
  const worst = runs
    .map((r) => r.conclusion ?? "neutral")
    .sort((a, b) => SEVERITY.indexOf(a) - SEVERITY.indexOf(b))[0]!;
  return { status: "completed", conclusion: worst === "skipped" ? "success" : worst };
}

export function checkRunShape(
  core: ForgeCore,
  repo: RepoRec,
  run: CheckRunRec,
  opts: { webhook?: boolean } = {},
): Record<string, unknown> {
  const api = repoApi(core, repo);
  const app = core.store.app(run.appId);
  return {
    id: run.id,
    head_sha: run.headSha,
    node_id: nodeId("CheckRun", run.id),
    external_id: run.externalId,
    url: `${api}/check-runs/${run.id}`,
    html_url: `${repoHtml(core, repo)}/runs/${run.id}`,
    details_url: run.detailsUrl ?? `${repoHtml(core, repo)}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: run.annotations.length,
      annotations_url: `${api}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: opts.webhook ? webhookSuite(core, repo, run.suiteId) : { id: run.suiteId },
    app: app ? appShape(core, app, opts) : null,
    pull_requests: checkPulls(core, repo, run.headSha),
  };
}

/** The fields of its suite a check_run webhook embeds, in GitHub's order. */
const WEBHOOK_SUITE_FIELDS = [
  "id",
  "node_id",
  "head_branch",
  "head_sha",
  "status",
  "conclusion",
  "url",
  "before",
  "after",
  "pull_requests",
  "app",
  "created_at",
  "updated_at",
] as const;

/** The suite as a check_run webhook embeds it. */
function webhookSuite(core: ForgeCore, repo: RepoRec, suiteId: number): Record<string, unknown> {
  const suite = core.store.data.checkSuites.find((s) => s.id === suiteId);
  if (!suite) return { id: suiteId };
  const full = checkSuiteShape(core, repo, suite, null, { webhook: true });
  return Object.fromEntries(WEBHOOK_SUITE_FIELDS.map((field) => [field, full[field]]));
}

export function checkSuiteShape(
  core: ForgeCore,
  repo: RepoRec,
  suite: CheckSuiteRec,
  head: GitCommit | null,
  opts: { webhook?: boolean } = {},
): Record<string, unknown> {
  const api = repoApi(core, repo);
  const runs = core.store.data.checkRuns.filter((r) => r.suiteId === suite.id);
  const { status, conclusion } = suiteState(runs);
  const app = core.store.app(suite.appId);
  return {
    id: suite.id,
    node_id: nodeId("CheckSuite", suite.id),
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status,
    conclusion,
    url: `${api}/check-suites/${suite.id}`,
    before: suite.before,
    after: suite.after,
    pull_requests: checkPulls(core, repo, suite.headSha),
    app: app ? appShape(core, app, opts) : null,
    ...(opts.webhook ? {} : { repository: repoShape(core, repo) }),
    created_at: suite.createdAt,
    updated_at: suite.updatedAt,
    head_commit: head
      ? {
          id: head.sha,
          tree_id: head.tree,
          message: head.message.replace(/\n$/, ""),
          timestamp: head.committer.date,
          author: { name: head.author.name, email: head.author.email },
          committer: { name: head.committer.name, email: head.committer.email },
        }
      : null,
    latest_check_runs_count: new Set(runs.map((r) => r.name)).size,
    check_runs_url: `${api}/check-suites/${suite.id}/check-runs`,
    ...(opts.webhook ? {} : { rerequestable: true, runs_rerequestable: true }),
  };
}
