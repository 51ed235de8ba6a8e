import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { Probot } from "probot";
import type { Limits } from "../config/limits.js";
import type { Runtime } from "../config/schema.js";
import { probotAppPort } from "../github/app-port.js";
import { ConditionalCache } from "../github/conditional-cache.js";
import { DefaultBranchFiles } from "../github/default-branch-files.js";
import { GitHubError } from "../github/errors.js";
import { acquireGitSpawner } from "../github/git-process.js";
import { installationLookup } from "../github/installation-lookup.js";
import { GitObjectCache } from "../github/object-cache.js";
import { clusteredPacing, porchlightOctokit } from "../github/octokit.js";
import { ownWrites } from "../github/own-writes.js";
import type { AppPort } from "../github/port.js";
import { AppStopping, StopGate } from "../github/stop-gate.js";
import { BoundedWork, type PackageWorkSettings } from "../jobs/bounded/bounded.js";
import { BoundedRenderer } from "../jobs/bounded/renderer.js";
import type { MirrorAccess } from "../jobs/mirror/index.js";
import { operatorServicesFromEnv } from "../jobs/operator-env.js";
import type { Renderer } from "../jobs/renderer.js";
import { ByteBudget } from "../ops/byte-budget.js";
import { createLogger } from "../ops/logger.js";
import { Metrics } from "../ops/metrics.js";
import { makeTempFolder, reclaimTempFolders } from "../ops/temp-folders.js";
import { ParkedJobs, type SpentBudget } from "../queue/parked.js";
import { RedisQueue } from "../queue/redis-queue.js";
import { RepoQueues } from "../queue/repo-queue.js";
import { scheduleSweeps } from "../queue/sweep-schedule.js";
import type { AppDeps } from "./deps.js";
import { botIdentity, once } from "./identity.js";
import { porchlightApp } from "./probot-app.js";
import { enqueueJob, type JobData, JobParked, type JobRequest, runJob } from "./run-job.js";
import { sweepInstallations } from "./sweep.js";
import { readJobData } from "./tasks.js";
import { DeliveryLedger } from "./webhook/deliveries.js";
import { DEFAULT_WEBHOOK_MAX_BYTES, PENDING_BODIES, webhookEdge } from "./webhook/edge.js";

export interface AppServerOptions {
  appId: number | string;
  privateKey: string;
  webhookSecret: string;
  /** REST base URL: GitHub's by default; the forge's `${url}/api/v3`, or GitHub Enterprise's. */
  baseUrl?: string;
  port?: number;
  host?: string;
  webhookPath?: string;
  /** Largest webhook body taken, in bytes (default 25 MB, GitHub's own cap); larger ones get 413 unread. */
  webhookMaxBytes?: number;
  /** Bytes all webhook bodies being read at once may hold (default four times webhookMaxBytes); past it, 503. */
  webhookMaxPendingBytes?: number;
  /** Least time between two writes of one installation (1000 ms on GitHub; ~0 for the forge). */
  writeIntervalMs?: number;
  rateLimitRetries?: number;
  retryAfterUnitMs?: number;
  /**
   * The longest a GitHub call waits for a rate limit (seconds; default 60). A longer wait — the
   * installation's hourly budget spent — parks the job until the reset instead (docs/operations.md).
   */
  maxWaitS?: number;
  /** How often parked jobs are looked at to see whether their limit has reset (default 1000 ms). */
  parkPollMs?: number;
  /** Jobs of different repositories running at once. */
  concurrency?: number;
  cacheDir?: string;
  operatorRuntimes?: Runtime[];
  /** What a package and a job may cost (PORCHLIGHT_MAX_*); absent: the defaults. */
  limits?: Limits;
  /**
   * Wait between the end of one periodic sweep and the start of the next; 0 or absent: no periodic
   * sweep (only `sweep()` on demand, and the start-up one).
   */
  reconcileIntervalMs?: number;
  /**
   * How long `close()` waits for running jobs before it abandons them (default 20000 ms, under
   * Kubernetes' 30 s grace; PORCHLIGHT_STOP_GRACE_MS): see AppServer.close.
   */
  stopGraceMs?: number;
  /** Sweep once right after start-up (what was missed while the app was down). Default false. */
  sweepAtStart?: boolean;
  renderer?: Renderer;
  /**
   * Renders, guardrails, merges and variants' mutations on worker threads, each stopped past
   * `timeoutMs` (PORCHLIGHT_RENDER_*: `porchlight serve` always sets it). Absent: on the app's own
   * thread, unbounded (tests that start an app of their own). Ignored with `renderer`.
   */
  packageWork?: PackageWorkSettings;
  log?: Logger;
  /** Registry access for publish.oci mirrors (default: PORCHLIGHT_OCI_* and DOCKER_CONFIG of the environment). */
  mirror?: MirrorAccess;
  /** The app's clock (rollout soak times, schedules); default the system's. Tests share the forge's virtual one. */
  now?: () => Date;
  /**
   * Distributed mode (REDIS_URL): this process is one replica of several sharing the work through
   * Redis (docs/scaling.md). Absent: everything in this process, as `npm start` runs it.
   */
  redis?: RedisSettings;
  /**
   * Told of each webhook of a repository the app receives (`owner/repo`, the event's name, its payload), after its
   * signature is checked: how a process serving Porch's API beside the app (`porchlight serve`) keeps
   * its index of package revisions current. Whatever it throws is logged, never the delivery's failure.
   */
  onRepositoryEvent?: (repository: string, event: string, payload?: unknown) => void;
}

export interface RedisSettings {
  url: string;
  /** Prefix of every Redis key; replicas of one app share it (default `porchlight`). */
  prefix?: string;
  /** This replica's name in logs and metrics (default: host name and process id). */
  replica?: string;
  /** A replica silent this long is taken for dead and its jobs run elsewhere (default 30000). */
  lockMs?: number;
  /** How often replicas look for jobs of dead replicas (default lockMs). */
  stalledIntervalMs?: number;
  /** Wait before a job of a busy repository is looked at again (default 500). */
  busyDelayMs?: number;
}

export interface AppServer {
  url: string;
  webhookUrl: string;
  queues: RepoQueues;
  metrics: Metrics;
  /** Resolves when no job is waiting or running (distributed mode: in the whole fleet). */
  idle(): Promise<void>;
  /** Distributed mode: the shared queue. */
  redisQueue?: RedisQueue;
  /**
   * Whether this process parked jobs of `owner`'s repositories because the installation's GitHub budget
   * is spent (its latest reset, GitHub's words, how many): what Porch's API beside the app tells an
   * approval waiting for their checks (`porchlight serve`).
   */
  botParked(owner: string): SpentBudget | undefined;
  /**
   * Queues a reconcile and a fan-out job for every repository of every installation now; in this process,
   * resolves once they have run, after logging what they did (`sweep done`). Resolves with the number of
   * repositories.
   */
  sweep(): Promise<number>;
  /**
   * Stops taking webhooks, finishes the queued jobs within the stop's grace (`stopGraceMs`), then
   * closes. Jobs still running past it are abandoned: the door to GitHub is shut (stop-gate.ts: a job
   * stops before its next write; a push on its way lands whole or not at all), the render threads are
   * ended (their functions' processes killed), the jobs still waiting dropped; the next start's sweep
   * does their work. Distributed mode: finishes the jobs running here (the queued ones stay in Redis
   * for the other replicas); `abandon`: leaves even those, as a replica that dies would.
   */
  close(opts?: { abandon?: boolean }): Promise<void>;
}

const WEBHOOK_PATH = "/api/github/webhooks";
/** The longest a GitHub call waits for a rate limit before its job is parked (PORCHLIGHT_RATE_LIMIT_MAX_WAIT_S). */
export const DEFAULT_MAX_WAIT_S = 60;
/** How long a stop waits for running jobs before it abandons them (PORCHLIGHT_STOP_GRACE_MS). */
export const DEFAULT_STOP_GRACE_MS = 20_000;
/** After the jobs are abandoned, how long the stop waits for them to see the door shut. */
const ABANDONED_MS = 5000;

/**
 * The app's HTTP server: webhooks at `/api/github/webhooks` (our edge, src/app/webhook/edge.ts, checks
 * size, signature, shape and installation, then hands the event to probot), `/healthz` and `/metrics`
 * (Prometheus), and the periodic sweep. One call, one app: nothing is shared between two.
 */
export async function startAppServer(opts: AppServerOptions): Promise<AppServer> {
  const replica = opts.redis ? (opts.redis.replica ?? `${hostname()}-${process.pid}`) : undefined;
  const log = (opts.log ?? createLogger()).child(replica ? { replica } : {});
  const metrics = new Metrics(replica ? { replica } : {});
  const jobDone = jobOutcomes(log, metrics);
  const queues = new RepoQueues(opts.concurrency ?? 4, (outcome) => {
    jobDone(outcome);
    metrics.queueDepth.set(queues.size);
  });
  const gate = new StopGate();
  const { probot, pacing } = appProbot(opts, log, metrics, gate);
  // PORCHLIGHT_CACHE_DIR kept across restarts keeps the cache clones and the renderers' journal
  const kept = opts.cacheDir || process.env.PORCHLIGHT_CACHE_DIR;
  // a folder of the app's own making is the app's to remove when it stops (cache clones are large)
  if (!kept) {
    // the clones of private repositories a process killed before it could remove them (SIGKILL, a crash)
    const reclaimed = reclaimTempFolders();
    if (reclaimed.length > 0)
      log.info({ folders: reclaimed }, "removed the temporary folders of a porchlight process that is gone");
  }
  const cacheDir = kept || makeTempFolder("porchlight-cache-");
  const dropCache = () => {
    if (!kept) rmSync(cacheDir, { recursive: true, force: true });
  };
  // Files' bytes by blob id, for every job of the app's life: a push reads only the blobs it changed.
  const blobs = new GitObjectCache();
  // The configuration files every job reads first, kept by the commit of their default branch.
  const files = new DefaultBranchFiles();
  // The app's own check runs and comments, known from its listings and writes: one process only, never
  // a fleet's replica (another replica writes runs and comments this one would not hear of).
  const own = opts.redis ? undefined : ownWrites();
  const github = probotAppPort(probot, cacheDir, blobs, gate, files, own);
  // what GET /app answered at start is the bot's identity: not asked for again at the first job
  const checked = await checkCredentials(opts.appId, github, log).catch(async (err: unknown) => {
    await pacing?.close();
    dropCache();
    throw err;
  });
  // the GitHub the app serves (GitHub Enterprise, the embedded forge) is reached wherever it is
  const allow = opts.baseUrl ? [endpointOf(opts.baseUrl)] : [];
  const work =
    opts.packageWork && !opts.renderer
      ? new BoundedWork(opts.packageWork, {
          env: { ...process.env },
          allow,
          journalDir: join(cacheDir, "renders"),
        })
      : undefined;
  const bounded = work && new BoundedRenderer(work);
  const { renderer, mirror } = operatorServicesFromEnv(process.env, {
    allow,
    // an image's source label names the repository where the app serves it (GitHub Enterprise, the forge)
    serverUrl: opts.baseUrl?.replace(/\/api\/v3\/?$/, ""),
    renderer: opts.renderer ?? bounded,
    mirror: opts.mirror,
  });
  const deps: AppDeps = {
    queues,
    metrics,
    renderer,
    ...(bounded ? { engine: bounded } : {}),
    cacheDir,
    blobs,
    files,
    ...(own ? { own } : {}),
    gate,
    operatorRuntimes: opts.operatorRuntimes ?? ["builtin"],
    ...(opts.limits ? { operatorLimits: opts.limits } : {}),
    log,
    ...(opts.now ? { now: opts.now } : {}),
    identity: once(async () => botIdentity(checked ?? (await github.identity()))),
    installationLookup: () => installationLookup(github),
    otherInstallation: async (repo) => {
      const installationId = await github.installationIdOf(repo);
      return { installationId, connect: () => github.installation(installationId) };
    },
    mirror,
    ...(opts.onRepositoryEvent ? { onRepositoryEvent: opts.onRepositoryEvent } : {}),
  };
  const sweep = sweeper(deps, github);
  const prefix = opts.redis?.prefix ?? "porchlight";
  const redisQueue = opts.redis
    ? distributedQueue(opts, opts.redis, prefix, { deps, github, jobDone, sweep })
    : undefined;
  const parked = parkJobs(opts, deps);
  deps.parked = parked;
  const webhookPath = opts.webhookPath ?? WEBHOOK_PATH;
  await probot.load(porchlightApp(deps));
  const webhooks = appWebhooks(opts, deps, {
    installation: (id) => github.access(id),
    receive: (event) => probot.webhooks.receive(event as never),
    ...(redisQueue ? { deliveries: new DeliveryLedger(redisQueue.client, prefix) } : {}),
  });
  const sweepHealth: SweepHealth = {};
  const { server, url } = await listen(opts, {
    metrics,
    webhookPath,
    webhooks,
    redisQueue,
    parked,
    sweepHealth,
  });
  // Listening: the render threads start now, idle (their modules loaded, the journal read back), so
  // the first push after a start does not pay them; readiness does not wait on them.
  work?.start();
  // Distributed mode: the fleet's sweep is a BullMQ job scheduler, one sweep per period (redis-queue.ts).
  const schedule = redisQueue
    ? undefined
    : scheduleSweeps({
        intervalMs: opts.reconcileIntervalMs ?? 0,
        atStart: opts.sweepAtStart ?? false,
        sweep: async () => {
          await sweep();
          sweepHealth.failed = undefined;
        },
        onError: (err) => {
          // GitHub's reset is on GitHub's clock, which the app's (opts.now) follows
          const at = (opts.now?.() ?? new Date()).getTime();
          const retryMs = untilLimitReset(err, at);
          const nextMs = retryMs ?? (opts.reconcileIntervalMs || undefined);
          const reason = err instanceof Error ? err.message : String(err);
          sweepHealth.failed = { reason, ...(nextMs !== undefined ? { nextAt: at + nextMs } : {}) };
          log.error(
            { err, ...(nextMs !== undefined ? { nextSweepInMs: nextMs } : {}) },
            retryMs !== undefined
              ? "sweep failed: GitHub's rate limit is spent; the next sweep runs at its reset"
              : "sweep failed; the next one comes after the interval",
          );
          return retryMs;
        },
      });
  await redisQueue?.start({ sweepAtStart: opts.sweepAtStart ?? false });
  // The app's git, started from a small process of its own: a fork from this heap costs more than git.
  const gitSpawner = acquireGitSpawner();
  return {
    url,
    webhookUrl: `${url}${webhookPath}`,
    queues,
    metrics,
    idle: () => (redisQueue ? redisQueue.idle() : queues.idle()),
    ...(redisQueue ? { redisQueue } : {}),
    botParked: (owner) =>
      parked.spent((req) => req.repository.id.owner.toLowerCase() === owner.toLowerCase())[0],
    sweep,
    close: async (how = {}) => {
      const left = parked.close();
      if (left > 0) log.warn({ parked: left }, "parked jobs left to the next start's sweep");
      await closeServer(server);
      const graceMs = opts.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
      const drained = (async () => {
        await schedule?.stop();
        await queues.close();
        await redisQueue?.close(how);
      })();
      if (!(await within(drained, graceMs))) {
        const running = queues.runningJobs;
        const dropped = queues.dropWaiting(new AppStopping("the job", "porchlight stopped before it ran"));
        gate.shut(
          `porchlight is stopping and its stop's grace (${graceMs} ms, PORCHLIGHT_STOP_GRACE_MS) has passed`,
        );
        log.warn(
          { graceMs, running, dropped },
          "stop: jobs still running after the grace abandoned; the next start's sweep does their work",
        );
        await work?.close();
        await within(drained, ABANDONED_MS);
      }
      await pacing?.close();
      await work?.close();
      gitSpawner.release();
      dropCache();
    },
  };
}

/** A job's end in the metrics and, when it failed, the log (a parked job did not fail: run-job.ts). */
function jobOutcomes(
  log: Logger,
  metrics: Metrics,
): (outcome: { ok: boolean; key: string; repo: string; error?: unknown }) => void {
  return (outcome) => {
    const kind = outcome.key.split(":")[0] ?? "job";
    const parked = outcome.error instanceof JobParked;
    const abandoned = outcome.error instanceof AppStopping ? outcome.error : undefined;
    metrics.jobs.inc({
      kind,
      outcome: outcome.ok ? "ok" : parked ? "parked" : abandoned ? "abandoned" : "error",
    });
    if (abandoned)
      log.warn(
        { repo: outcome.repo, key: outcome.key, err: abandoned.message },
        "job abandoned at the stop; the next start's sweep does its work",
      );
    else if (!outcome.ok && !parked)
      log.error({ err: outcome.error, repo: outcome.repo, key: outcome.key }, "job failed");
  };
}

/**
 * The probot app, its Octokit pacing writes and waiting out rate limits. Clustering mode: Bottleneck's
 * write pacing and rate limits shared per installation by the fleet, on a connection of our own (not
 * probot's `redisConfig`, whose client nothing closes).
 */
function appProbot(
  opts: AppServerOptions,
  log: Logger,
  metrics: Metrics,
  gate: StopGate,
): { probot: Probot; pacing: ReturnType<typeof clusteredPacing> | undefined } {
  const pacing = opts.redis
    ? clusteredPacing(opts.redis.url, `${opts.redis.prefix ?? "porchlight"}-${opts.appId}`, (err) =>
        log.warn({ err }, "Redis (write pacing) unreachable"),
      )
    : undefined;
  const probot = new Probot({
    appId: opts.appId,
    privateKey: opts.privateKey,
    secret: opts.webhookSecret,
    log,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    Octokit: porchlightOctokit({
      writeIntervalMs: opts.writeIntervalMs ?? 1000,
      rateLimitRetries: opts.rateLimitRetries ?? 3,
      maxWaitS: opts.maxWaitS ?? DEFAULT_MAX_WAIT_S,
      ...(opts.retryAfterUnitMs !== undefined ? { retryAfterUnitMs: opts.retryAfterUnitMs } : {}),
      metrics,
      gate,
      ...(pacing ? { cluster: pacing.cluster } : {}),
      // GETs asked again are conditional: GitHub does not count a 304 against the installation's budget
      installationAnswers: new ConditionalCache({ maxBytes: 32 * 1024 * 1024 }),
    }),
  });
  return { probot, pacing };
}

type AppGitHub = ReturnType<typeof probotAppPort>;

/**
 * The sweep: a reconcile and a fan-out job queued for every repository of every installation; resolves
 * with the number of repositories once they have run here, after logging what they did.
 */
function sweeper(deps: AppDeps, github: AppGitHub): () => Promise<number> {
  const { metrics, log } = deps;
  return async () => {
    let queued: Awaited<ReturnType<typeof sweepInstallations>>;
    try {
      queued = await sweepInstallations(deps, github);
      metrics.sweeps.inc({ outcome: "ok" });
      log.info({ repositories: queued.repositories }, "sweep queued");
    } catch (err) {
      metrics.sweeps.inc({ outcome: "error" });
      throw err;
    }
    // The safety net's measure: what the sweep found to do, in one line (zero in a healthy run).
    const done = await queued.done;
    if (done) {
      const total = Object.values(done.actions).reduce((a, b) => a + b, 0);
      log.info(
        {
          repositories: queued.repositories,
          actions: total,
          byKind: done.actions,
          failedJobs: done.failedJobs,
        },
        total === 0 ? "sweep done: nothing to do" : "sweep done: it did what events had not",
      );
    }
    return queued.repositories;
  };
}

/**
 * Distributed mode (REDIS_URL): the queue the replicas share, through which every job goes
 * (`deps.distributed`), its counts in the metrics at each scrape.
 */
function distributedQueue(
  opts: AppServerOptions,
  redis: RedisSettings,
  prefix: string,
  app: {
    deps: AppDeps;
    github: AppGitHub;
    jobDone: ReturnType<typeof jobOutcomes>;
    sweep: () => Promise<number>;
  },
): RedisQueue {
  const { deps, github } = app;
  const { metrics } = deps;
  const redisQueue = new RedisQueue({
    url: redis.url,
    prefix,
    concurrency: opts.concurrency ?? 4,
    sweepIntervalMs: opts.reconcileIntervalMs ?? 0,
    ...(redis.lockMs !== undefined ? { lockMs: redis.lockMs } : {}),
    ...(redis.stalledIntervalMs !== undefined ? { stalledIntervalMs: redis.stalledIntervalMs } : {}),
    ...(redis.busyDelayMs !== undefined ? { busyDelayMs: redis.busyDelayMs } : {}),
    run: async (job) => {
      const data: JobData = readJobData(job.payload);
      const id = data.installationId ?? (await github.installationIdOf(data.repository.id));
      await runJob(deps, { ...data, connect: () => github.installation(id) });
    },
    sweep: () => app.sweep(),
    onStart: (waitedMs) => metrics.queueWait.observe({ queue: "jobs" }, waitedMs / 1000),
    onRetry: (reason) => metrics.queueRetries.inc({ queue: "jobs", reason }),
    onDone: app.jobDone,
  });
  deps.distributed = {
    enqueue: (data) =>
      redisQueue.enqueue({
        repo: data.repository.fullName,
        key: `${data.kind}:${data.key}`,
        origin: data.origin ?? "event",
        payload: data,
      }),
  };
  metrics.refreshOnScrape(async () => {
    for (const [state, n] of Object.entries(await redisQueue.counts()))
      metrics.queueJobs.set({ queue: redisQueue.name, state }, n);
  });
  return redisQueue;
}

/** Jobs parked until their installation's rate limit resets, then queued again. */
function parkJobs(opts: AppServerOptions, deps: AppDeps): ParkedJobs<JobRequest> {
  const { log, metrics } = deps;
  return new ParkedJobs<JobRequest>({
    now: () => (opts.now?.() ?? new Date()).getTime(),
    pollMs: opts.parkPollMs ?? 1000,
    release: (req) => {
      log.info({ repo: req.repository.fullName, job: req.kind, key: req.key }, "parked job queued again");
      enqueueJob(deps, req).catch((err) =>
        log.error(
          { err, repo: req.repository.fullName, key: req.key },
          "a parked job could not be queued again",
        ),
      );
    },
    onChange: (size) => metrics.parkedJobs.set(size),
  });
}

/**
 * The webhook endpoint: our edge (src/app/webhook/edge.ts) checks size, signature, shape and
 * installation, then hands the event to probot; what it refuses is counted.
 */
function appWebhooks(
  opts: AppServerOptions,
  deps: AppDeps,
  app: Pick<Parameters<typeof webhookEdge>[0], "installation" | "receive" | "deliveries">,
): Handler {
  const maxBytes = opts.webhookMaxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES;
  return webhookEdge({
    secret: opts.webhookSecret,
    maxBytes,
    budget: new ByteBudget(Math.max(maxBytes, opts.webhookMaxPendingBytes ?? PENDING_BODIES * maxBytes)),
    log: deps.log,
    ...app,
    refused: (reason, status) => deps.metrics.webhooksRefused.inc({ reason, status: String(status) }),
  });
}

/** The HTTP server, listening: its routes, and `Expect: 100-continue` answered by the webhook edge. */
async function listen(opts: AppServerOptions, routes: Routes): Promise<{ server: Server; url: string }> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void route(req, res, routes);
  };
  const server = createServer(handle);
  // `Expect: 100-continue` is answered by the edge once it decides to read the body (not before a 413).
  server.on("checkContinue", handle);
  const [port, host] = [opts.port ?? 3000, opts.host ?? "127.0.0.1"];
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `the app cannot listen on ${host}:${port}: another program (another porchlight?) listens there; set PORT to a free port`,
            )
          : err,
      ),
    );
    server.listen(port, host, resolve);
  });
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Routes {
  metrics: Metrics;
  webhookPath: string;
  webhooks: Handler;
  redisQueue: RedisQueue | undefined;
  parked: ParkedJobs<JobRequest>;
  sweepHealth: SweepHealth;
}

/** The last sweep's failure, for /healthz, until a sweep succeeds. */
interface SweepHealth {
  failed?: { reason: string; nextAt?: number };
}

/**
 * How long until a spent rate limit comes back, for an error that says so (GitHub's reset, or its
 * `retry-after`); undefined for any other error.
 */
function untilLimitReset(err: unknown, now: number): number | undefined {
  const e = err instanceof AggregateError ? err.errors.find((x) => x instanceof GitHubError) : err;
  if (!(e instanceof GitHubError) || e.kind !== "rate-limited") return undefined;
  if (e.resetAt !== undefined) return Math.max(1000, e.resetAt - now + 1000);
  return Math.max(1000, (e.retryAfter ?? 60) * 1000);
}

async function route(req: IncomingMessage, res: ServerResponse, r: Routes) {
  const { metrics, webhookPath, webhooks, redisQueue } = r;
  const path = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" && path === "/healthz") {
    if (redisQueue && !(await redisQueue.ping())) {
      res.writeHead(503, { "content-type": "text/plain" }).end("redis: unreachable\n");
      return;
    }
    res
      .writeHead(200, { "content-type": "text/plain" })
      .end(health(r.parked, r.sweepHealth, redisQueue !== undefined));
    return;
  }
  if (req.method === "GET" && path === "/metrics") {
    const text = await metrics.text();
    res.writeHead(200, { "content-type": metrics.contentType }).end(text);
    return;
  }
  if (path === webhookPath) {
    await webhooks(req, res);
    return;
  }
  res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
}

/**
 * /healthz's body: `ok`, or `degraded` and why — each installation whose GitHub budget is spent, until
 * when, and the jobs parked for it. Degraded is still 200: the app takes webhooks and parks their jobs,
 * so a restart would not help (docs/operations.md).
 */
function health(parked: ParkedJobs<JobRequest>, sweep: SweepHealth, redis: boolean): string {
  const spent = parked.spent();
  const lines = spent.map(
    (s) =>
      `rate limit: installation ${s.installation}'s GitHub budget is spent until ${new Date(s.until).toISOString()}; ${s.jobs} ${s.jobs === 1 ? "job" : "jobs"} parked until then (${s.reason})`,
  );
  const failed = sweep.failed;
  if (failed)
    lines.push(
      `sweep: the last sweep failed (${failed.reason})${failed.nextAt !== undefined ? `; the next runs at ${new Date(failed.nextAt).toISOString()}` : ""}`,
    );
  const degraded = spent.length > 0 || failed !== undefined;
  return [degraded ? "degraded" : "ok", ...lines, ...(redis ? ["redis: reachable"] : [])]
    .map((l) => `${l}\n`)
    .join("");
}

/** Whether `work` settled within `ms` (it goes on either way; its failure counts as settled). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** `HOST:PORT` of a URL, as the egress policy allows one endpoint. */
function endpointOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
}

/**
 * The app's credentials tried once at start (`GET /app` with its JWT): an APP_ID or PRIVATE_KEY GitHub
 * refuses stops the start with one line saying so, rather than an app that says `ok` on /healthz and
 * answers every webhook with 500. GitHub unreachable is no verdict: logged, and the app starts.
 */
async function checkCredentials(
  appId: string | number,
  github: AppPort,
  log: Logger,
): Promise<Awaited<ReturnType<AppPort["identity"]>> | undefined> {
  try {
    return await github.identity();
  } catch (e) {
    if (e instanceof GitHubError && ["unauthorized", "not-found", "forbidden"].includes(e.kind))
      throw new Error(
        `GitHub refused the app's credentials (APP_ID ${appId} and its PRIVATE_KEY): ${e.message}; check both against the app's settings page (the App ID, and a private key generated there)`,
      );
    log.warn(
      { err: e },
      "could not check the app's credentials at start (GitHub unreachable?); starting anyway",
    );
    return undefined;
  }
}
