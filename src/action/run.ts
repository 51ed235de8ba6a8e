import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Probot } from "probot";
import { porchlightApp } from "../app/probot-app.js";
import { actionPayloadProblem } from "../app/webhook/payloads.js";
import { LimitSettingError, operatorLimitsFromEnv } from "../config/limits.js";
import { operatorRuntimesFromEnv } from "../config/runtimes.js";
import { installationPort } from "../github/installation.js";
import type { RestClient } from "../github/octokit-repo.js";
import type { SweepResult } from "../jobs/reconcile.js";
import type { Renderer } from "../jobs/renderer.js";
import { createLogger, maskSecrets } from "../ops/logger.js";
import { createActionDeps } from "./deps.js";
import { ActionEnvError, readActionEnv } from "./env.js";
import { type ActionMode, modeOf, payloadRefusal, readPayload } from "./events.js";
import { actionIdentity } from "./identity.js";
import { actionProbot } from "./probot.js";
import { reconcileHere } from "./reconcile.js";
import { runReport } from "./report.js";

export interface ActionRunOptions {
  env: NodeJS.ProcessEnv;
  /** The step's stdout: workflow commands (annotations) and the summary line go here. */
  stdout: (text: string) => void;
  /** `reconcile` forces the periodic reconcile whatever the event; `auto` decides by the event. */
  mode?: "auto" | "reconcile";
  log?: Logger;
  renderer?: Renderer;
  /** Least time between two writes (1000 ms on GitHub, as the hosted app; tests use 0). */
  writeIntervalMs?: number;
  /** Milliseconds per second of a rate limit's `retry-after` (tests shorten it). */
  retryAfterUnitMs?: number;
}

/**
 * One GitHub Actions run of porchlight, as probot's Actions adapter does it: the event the workflow
 * got (name from `GITHUB_EVENT_NAME`, payload from `GITHUB_EVENT_PATH`) is handed to the same app
 * the hosted service runs, authenticated with the workflow's token; `schedule` and
 * `workflow_dispatch` reconcile the repository instead. Resolves with the exit code once every job
 * the event started has run: 0, or 1 with an `::error::` annotation for each failure.
 */
export async function runAction(opts: ActionRunOptions): Promise<number> {
  const log =
    opts.log ??
    createLogger({ level: opts.env.RUNNER_DEBUG === "1" ? "debug" : (opts.env.LOG_LEVEL ?? "info") });
  const fail = (message: string) => {
    opts.stdout(runReport.error("porchlight", message));
    return 1;
  };
  let env: ReturnType<typeof readActionEnv>;
  const mode: ActionMode =
    opts.mode === "reconcile" ? { kind: "reconcile" } : modeOf(opts.env.GITHUB_EVENT_NAME?.trim() ?? "");
  try {
    env = readActionEnv(opts.env, { needsEvent: opts.mode !== "reconcile" });
  } catch (e) {
    if (e instanceof ActionEnvError) return fail(e.message);
    throw e;
  }
  if (mode.kind === "ignored") {
    opts.stdout(runReport.warning("porchlight", mode.reason));
    return 0;
  }
  let operatorLimits: ReturnType<typeof operatorLimitsFromEnv>;
  try {
    operatorLimits = operatorLimitsFromEnv(opts.env);
  } catch (e) {
    if (e instanceof LimitSettingError) return fail(e.message);
    throw e;
  }
  const cacheDir = await mkdtemp(join(opts.env.RUNNER_TEMP || tmpdir(), "porchlight-cache-"));
  const { deps, outcomes } = createActionDeps({
    identity: actionIdentity(opts.env),
    operatorRuntimes: operatorRuntimesFromEnv(opts.env),
    operatorLimits,
    cacheDir,
    log,
    ...(opts.renderer ? { renderer: opts.renderer } : {}),
  });
  const probot = actionProbot(env, {
    log,
    metrics: deps.metrics,
    ...(opts.writeIntervalMs !== undefined ? { writeIntervalMs: opts.writeIntervalMs } : {}),
    ...(opts.retryAfterUnitMs !== undefined ? { retryAfterUnitMs: opts.retryAfterUnitMs } : {}),
  });
  const problems: string[] = [];
  let sweep: SweepResult | null = null;
  try {
    // The workflow's token is the installation: a fresh door on it for every job.
    const octokit: RestClient = await probot.auth();
    const connect = async () => installationPort(octokit, cacheDir);
    if (mode.kind === "webhook") {
      const event = { id: env.runId, name: mode.name, payload: await readPayload(env.eventPath) };
      if (!isHandledEvent(event)) throw new Error(payloadRefusal(env.eventPath, event));
      await probot.load(porchlightApp(deps));
      await probot.receive(event);
      // A job may publish, and its outbox queues the fan-out (the same jobs as the app's): wait until nothing is left.
      await deps.queues.idle();
    } else {
      sweep = await reconcileHere(deps, connect, await (await connect()).repository(env.repository));
    }
  } catch (e) {
    problems.push(...handlerErrors(e));
  } finally {
    await deps.queues.close();
    await rm(cacheDir, { recursive: true, force: true });
  }
  const summary = {
    event: mode.kind === "webhook" ? mode.name : "reconcile",
    repository: `${env.repository.owner}/${env.repository.repo}`,
    problems,
    outcomes,
    sweep,
  };
  const lines = runReport.lines(summary);
  opts.stdout(lines.text);
  const stepSummary = opts.env.GITHUB_STEP_SUMMARY?.trim();
  if (stepSummary)
    await appendFile(stepSummary, runReport.markdown(summary)).catch((err) =>
      log.warn({ err }, "cannot write the step summary"),
    );
  return lines.failed ? 1 : 0;
}

/**
 * Whether the app's handlers take the run's event: its payload holds the fields they read, checked as
 * the webhook edge checks a delivery's, save `installation`, which an Actions payload does not have
 * (src/app/webhook/payloads.ts). The rest of the payload, as probot types it, is GitHub's as it came.
 */
function isHandledEvent(event: {
  id: string;
  name: string;
  payload: unknown;
}): event is Parameters<Probot["receive"]>[0] {
  return actionPayloadProblem(event.name, event.payload) === undefined;
}

/** The messages of what a handler threw (probot gathers them in an AggregateError), secrets masked. */
function handlerErrors(e: unknown): string[] {
  const errors = e instanceof AggregateError ? e.errors : [e];
  return errors.map((err) => maskSecrets(err instanceof Error ? err.message : String(err)));
}
