import type { Logger } from "pino";
import type { AppDeps } from "../app/deps.js";
import type { Limits } from "../config/limits.js";
import type { Runtime } from "../config/schema.js";
import type { BotIdentity } from "../jobs/context.js";
import { operatorServicesFromEnv } from "../jobs/operator-env.js";
import type { Renderer } from "../jobs/renderer.js";
import { Metrics } from "../ops/metrics.js";
import { type JobOutcome, RepoQueues } from "../queue/repo-queue.js";

export interface ActionDepsOptions {
  identity: BotIdentity;
  operatorRuntimes: Runtime[];
  operatorLimits?: Limits;
  cacheDir: string;
  log: Logger;
  renderer?: Renderer;
}

/** The app's dependencies for one Actions run, and the outcome of every job it ran. */
export interface ActionDeps {
  deps: AppDeps;
  /** Filled as jobs finish: what the run reports and decides its exit code by. */
  outcomes: JobOutcome[];
}

/**
 * The app's dependencies for a workflow run: one repository, so one job at a time; the identity is
 * the token's (no `GET /app` on Actions); jobs' outcomes are collected for the run's report.
 */
export function createActionDeps(opts: ActionDepsOptions): ActionDeps {
  const outcomes: JobOutcome[] = [];
  const metrics = new Metrics();
  const queues = new RepoQueues(1, (outcome) => {
    outcomes.push(outcome);
    const kind = outcome.key.split(":")[0] ?? "job";
    metrics.jobs.inc({ kind, outcome: outcome.ok ? "ok" : "error" });
    if (!outcome.ok)
      opts.log.error({ err: outcome.error, repo: outcome.repo, key: outcome.key }, "job failed");
  });
  const identity = opts.identity;
  // the workflow's env: PORCHLIGHT_OCI_* from its secrets (e.g. GITHUB_TOKEN for ghcr.io)
  const { renderer, mirror } = operatorServicesFromEnv(process.env, { renderer: opts.renderer });
  return {
    outcomes,
    deps: {
      queues,
      metrics,
      renderer,
      cacheDir: opts.cacheDir,
      operatorRuntimes: opts.operatorRuntimes,
      ...(opts.operatorLimits ? { operatorLimits: opts.operatorLimits } : {}),
      log: opts.log,
      identity: async () => identity,
      mirror,
    },
  };
}
