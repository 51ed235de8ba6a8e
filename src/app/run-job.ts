import { type LoadedConfig, loadRepoConfig } from "../config/load.js";
import { defaultConfig } from "../config/resolve.js";
import { GitHubError } from "../github/errors.js";
import type { InstallationPort, InstallationRepository } from "../github/port.js";
import { type JobContext, withDeferred } from "../jobs/context.js";
import { type FollowUp, followUpKey, rootOutbox } from "../jobs/outbox.js";
import type { Enqueued, JobOrigin, JobOutcome } from "../queue/repo-queue.js";
import { reportConfigProblems } from "./config.js";
import type { AppDeps } from "./deps.js";
import { sweepActions } from "./sweep-actions.js";
import { type TaskArgs, type TaskName, taskOf } from "./tasks.js";

/** A job as data: what a queue in Redis holds, and what any replica can run (src/app/tasks.ts). */
export interface JobData<T extends TaskName = TaskName> {
  /**
   * Names the job in logs and metrics: render, check, config-proposal, variants, publish, command,
   * reconcile, fanout, config.
   */
  kind: string;
  /** With `kind`, identifies the work: a pending job with the same key absorbs a new one. */
  key: string;
  /**
   * What caused it: a user's event (default: a webhook, or what a job it started publishes) or the
   * periodic sweep. An event's jobs run before the sweep's (docs/scaling.md, docs/operations.md).
   */
  origin?: JobOrigin;
  /** The work, by name, and its arguments (JSON-safe). */
  task: T;
  args: TaskArgs<T>;
  repository: InstallationRepository;
  /** The installation the job acts as: a replica that did not receive the webhook connects with it. */
  installationId?: number;
  deliveryId?: string;
  /** Where a configuration problem is reported as a failing check. */
  headSha?: string;
  /**
   * False for a job that runs nothing and only reads (checking the configuration a pull request
   * proposes): it runs with the built-in defaults even while the repository's configuration is broken.
   */
  needsConfig?: boolean;
}

export interface JobRequest<T extends TaskName = TaskName> extends JobData<T> {
  /** Opens the door to the repository's installation when the job starts: one per job. */
  connect: () => Promise<InstallationPort>;
  /** Told what the work returned (the Action's report); in this process only, never through Redis. */
  onOutcome?: (outcome: unknown) => void;
}

/**
 * Queues a job on its repository's queue: in this process (`deps.queues`), or in Redis when the app
 * runs as several replicas (`deps.distributed`; resolves once Redis holds the job, and rejects when it
 * cannot, so the webhook is answered 503 and GitHub keeps it for redelivery). Says whether the request
 * got a job of its own or was absorbed by one with the same key already waiting.
 */
export async function enqueueJob<T extends TaskName>(deps: AppDeps, req: JobRequest<T>): Promise<Enqueued> {
  if (deps.distributed) {
    const { connect: _connect, onOutcome: _onOutcome, ...data } = req;
    return deps.distributed.enqueue(data as JobData);
  }
  const absorbed = deps.queues.isWaiting(req.repository.fullName, `${req.kind}:${req.key}`);
  void queueHere(deps, req as JobRequest);
  return absorbed ? "absorbed" : "queued";
}

/**
 * In this process: queues a job and resolves when it has run — or the job that absorbed it, a later
 * request with the same key while it waited, whose outcome it shares.
 */
export function queueHere(deps: AppDeps, req: JobRequest): Promise<JobOutcome> {
  deps.metrics.queueDepth.set(deps.queues.size + 1);
  return deps.queues.enqueue({
    repo: req.repository.fullName,
    key: `${req.kind}:${req.key}`,
    origin: req.origin ?? "event",
    run: () => runJob(deps, req),
  });
}

/**
 * Runs one job: opens the installation (one adapter for the job: the repository's port is the
 * installation's port for it), loads and checks the configuration (a broken or unreadable one is
 * reported and nothing else happens), then does the work.
 */
export async function runJob(deps: AppDeps, req: JobRequest): Promise<void> {
  try {
    await runJobSteps(deps, req);
  } catch (err) {
    throw parkOnRateLimit(deps, req, err);
  }
}

/**
 * A job stopped by GitHub's rate limit (the installation's budget spent, or a secondary limit, for
 * longer than the app waits inside a call): parked until the limit resets, then queued again; said in
 * a log line and the metrics. The queue is told with a JobParked, which is no failure.
 */
function parkOnRateLimit(deps: AppDeps, req: JobRequest, err: unknown): unknown {
  if (!deps.parked || !(err instanceof GitHubError) || err.kind !== "rate-limited") return err;
  const now = (deps.now?.() ?? new Date()).getTime();
  const until = err.resetAt ?? now + (err.retryAfter ?? 60) * 1000;
  const installation = String(req.installationId ?? "unknown");
  deps.parked.park(`${req.repository.fullName}\0${req.kind}:${req.key}`, req, {
    installation,
    until,
    reason: err.message,
  });
  deps.metrics.jobsParked.inc({ kind: req.kind, reason: "rate-limit" });
  deps.log.warn(
    {
      repo: req.repository.fullName,
      job: req.kind,
      key: req.key,
      installation,
      until: new Date(until).toISOString(),
      err: err.message,
    },
    "job parked: GitHub rate limit spent; it runs again when the limit resets",
  );
  return new JobParked(until, err.message);
}

/** A job taken off the queue until a rate limit resets (see parkOnRateLimit): not a failure. */
export class JobParked extends Error {
  constructor(
    readonly until: number,
    reason: string,
  ) {
    super(`parked until ${new Date(until).toISOString()}: ${reason}`);
    this.name = "JobParked";
  }
}

async function runJobSteps(deps: AppDeps, req: JobRequest): Promise<void> {
  const full = req.repository.fullName;
  const task = taskOf(req.task);
  const log = deps.log.child({ repo: full, job: req.kind, key: req.key, deliveryId: req.deliveryId });
  const installation = await req.connect();
  const port = installation.repo(req.repository);
  const loaded: LoadedConfig =
    req.needsConfig === false
      ? { ok: true, config: defaultConfig() }
      : await loadRepoConfig((file) => installation.readFile(file), req.repository.id);
  if (!loaded.ok) {
    log.warn({ problems: loaded.problems.length }, "configuration is broken; doing nothing");
    if (req.headSha) await reportConfigProblems(port, req.headSha, loaded.problems);
    await task.onBadConfig?.(port, loaded.problems, req.args);
    return;
  }
  const ctx: JobContext = {
    port,
    config: loaded.config,
    baseBranch: loaded.config.baseBranch ?? req.repository.defaultBranch,
    renderer: deps.renderer,
    ...(deps.engine ? { engine: deps.engine } : {}),
    bot: await deps.identity(),
    outbox: rootOutbox((followUp) => queueFollowUp(deps, req, followUp)),
    log,
    operatorRuntimes: deps.operatorRuntimes,
    ...(deps.operatorLimits ? { operatorLimits: deps.operatorLimits } : {}),
    installation,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.installationLookup ? { installationFor: deps.installationLookup() } : {}),
    ...(deps.mirror ? { mirror: deps.mirror } : {}),
  };
  const end = deps.metrics.jobDuration.startTimer({ kind: req.kind });
  try {
    const outcome = await withDeferred(ctx, (c) => task.work(c, req.args));
    log.info({ outcome }, "job done");
    // What the sweep did that no event had: the safety net's measure (docs/operations.md).
    if (req.origin === "sweep")
      for (const [kind, n] of Object.entries(sweepActions(req.task, outcome)))
        deps.metrics.sweepActions.inc({ kind }, n);
    req.onOutcome?.(outcome);
  } finally {
    end();
  }
}

/**
 * A follow-up a job recorded in its outbox (src/jobs/outbox.ts), queued as a job of its own: on the
 * job's own installation (its repository, or another the installation reaches), or, for a repository
 * of another installation, on that one (found by the repository; the Action's token is its only
 * installation). Resolves once the queue holds it (Redis, in the distributed mode).
 */
export async function queueFollowUp(deps: AppDeps, req: JobRequest, followUp: FollowUp): Promise<void> {
  const { target } = followUp;
  const where =
    target.kind === "here"
      ? { repository: req.repository, installationId: req.installationId, connect: req.connect }
      : target.kind === "elsewhere" && deps.otherInstallation
        ? { repository: target.repository, ...(await deps.otherInstallation(target.repository.id)) }
        : { repository: target.repository, installationId: req.installationId, connect: req.connect };
  const { installationId, ...rest } = where;
  const job = {
    kind: "fanout",
    key: followUpKey(followUp),
    ...rest,
    ...(installationId ? { installationId } : {}),
  };
  if (followUp.task === "fanout-published") {
    await enqueueJob(deps, { ...job, task: "fanout-published", args: followUp.event });
    return;
  }
  deps.log.info(
    { repo: where.repository.fullName, reason: followUp.reason },
    "fan-out queued: checks finished downstream",
  );
  await enqueueJob(deps, { ...job, task: "fanout-wanted", args: {} });
}
