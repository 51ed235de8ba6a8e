import type { Logger } from "pino";
import { Probot } from "probot";
import { porchlightOctokit } from "../github/octokit.js";
import type { Metrics } from "../ops/metrics.js";
import { type ActionEnv, DEFAULT_API_URL } from "./env.js";

export interface ActionProbotOptions {
  log: Logger;
  metrics: Metrics;
  /** Least time between two writes (1000 ms on GitHub, as the hosted app; tests use 0). */
  writeIntervalMs?: number;
  /** Milliseconds per second of a rate limit's `retry-after` (tests shorten it). */
  retryAfterUnitMs?: number;
}

/**
 * probot authenticated with the workflow's token instead of the app's private key (what probot's
 * Actions adapter does), with porchlight's Octokit: paced writes, secondary rate limits waited out.
 */
export function actionProbot(env: ActionEnv, opts: ActionProbotOptions): Probot {
  return new Probot({
    githubToken: env.token,
    log: opts.log,
    ...(env.apiUrl !== DEFAULT_API_URL ? { baseUrl: env.apiUrl } : {}),
    Octokit: porchlightOctokit({
      writeIntervalMs: opts.writeIntervalMs ?? 1000,
      rateLimitRetries: 3,
      ...(opts.retryAfterUnitMs !== undefined ? { retryAfterUnitMs: opts.retryAfterUnitMs } : {}),
      metrics: opts.metrics,
    }),
  });
}
