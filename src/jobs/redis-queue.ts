import { randomUUID } from "node:crypto";
import { DelayedError, Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Enqueued, JobOrigin } from "./repo-queue.js";

/**
 * The job queue shared by several replicas, on BullMQ (docs/scaling.md says why this shape):
 *
 * - one BullMQ queue holds every repository's jobs; each replica's worker runs up to `concurrency`
 *   of them at once, oldest first, so no repository starves another, except that jobs a user's event
 *   caused go before the periodic sweep's (BullMQ's `priority`: a job without one is taken before any
 *   with one), so a sweep of hundreds of repositories never holds up a push or a command;
 * - a job *waiting* with the same repository and key absorbs a new one (BullMQ's `deduplication`);
 *   the job drops its deduplication key when it starts, so one *running* never absorbs one: the new
 *   request waits and runs after it;
 * - one job per repository at a time across the fleet: a job takes the repository's lock in Redis
 *   (owner: the job and BullMQ's lock token for this attempt) before it starts; a job whose
 *   repository is busy is *parked* (noted under the repository, oldest first) and goes back to
 *   BullMQ's delayed set for `busyDelayMs`, freeing the worker; the job that lets go of the lock puts
 *   the repository's oldest parked job at the front of its class, so it is not overtaken by the jobs
 *   queued while it waited (oldest first: one installation's burst never starves another's job);
 * - a replica that dies mid-job stops renewing BullMQ's job lock and the repository lock; another
 *   replica's stalled-job check moves the job back to waiting, and it runs again once the repository
 *   lock has expired (the jobs are level-triggered: running one again ends in the same state);
 * - the periodic sweep is a BullMQ job scheduler: one `sweep` job per period for the whole fleet.
 */
export interface RedisQueueOptions {
  /** `redis://…`, as REDIS_URL. */
  url: string;
  /** Prefix of every key (BullMQ's and ours): replicas of one app share it; tests use their own. */
  prefix: string;
  /** The queue's name under the prefix. Default `jobs`. */
  name?: string;
  /** Jobs this replica runs at once. */
  concurrency: number;
  run(job: QueuedJob): Promise<void>;
  /** Runs a sweep job (queues the fleet's reconcile jobs); `id` is BullMQ's, one per period. */
  sweep(id: string): Promise<unknown>;
  /** Period of the fleet's sweep; 0: none. */
  sweepIntervalMs: number;
  /** BullMQ's job lock (and the repository lock): a replica silent this long is taken for dead. Default 30000. */
  lockMs?: number;
  /** How often replicas look for jobs whose replica died. Default `lockMs`. */
  stalledIntervalMs?: number;
  /** How long a job whose repository is busy waits before it is looked at again. Default 500. */
  busyDelayMs?: number;
  onDone?(outcome: RedisJobOutcome): void;
  /** A job started again: its replica died (`stalled`), or its repository was busy (`busy`). */
  onRetry?(reason: "stalled" | "busy"): void;
  /** A job started: `waitedMs` after it was queued. */
  onStart?(waitedMs: number): void;
}

export interface QueuedJob {
  /** `owner/repo`: jobs with the same repository never overlap, across all replicas. */
  repo: string;
  /** Identifies the work; a waiting job with the same repository and key absorbs a new one. */
  key: string;
  /** A user's event (default) or the periodic sweep: a waiting event's job is taken first. */
  origin?: JobOrigin;
  /** JSON-safe data the runner needs. */
  payload: unknown;
}

export interface RedisJobOutcome {
  repo: string;
  key: string;
  ok: boolean;
  error?: unknown;
  durationMs: number;
}

const SWEEP = "sweep";
const JOB = "job";
/** BullMQ's priority: 0 (none) is taken before any other; among the sweep's, oldest first. */
const PRIORITY: Record<JobOrigin, number> = { event: 0, sweep: 1 };
const JOB_STATES = ["waiting", "active", "delayed", "prioritized"] as const;

/**
 * Take the lock if free. Never from another holder, not even the same job's earlier attempt: BullMQ
 * may take a replica for dead that is only slow (an event loop blocked past the job lock), and that
 * attempt may still be running; the lock of a replica really dead expires after `lockMs`.
 */
const ACQUIRE = `
local held = redis.call('GET', KEYS[1])
if (not held) or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisQueue {
  /** Fails fast while Redis is down (enqueue rejects, so a webhook is answered 503). */
  readonly client: Redis;
  /** Waits for Redis to come back (BullMQ's worker, the repository locks). */
  private readonly workerClient: Redis;
  private readonly queue: Queue;
  private readonly worker: Worker;
  readonly name: string;
  private readonly lockMs: number;
  private here = 0;

  constructor(private readonly opts: RedisQueueOptions) {
    this.name = opts.name ?? "jobs";
    this.lockMs = opts.lockMs ?? 30_000;
    this.client = new Redis(opts.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.workerClient = new Redis(opts.url, { maxRetriesPerRequest: null });
    // Errors surface where they matter (enqueue, health); ioredis also emits them on the client.
    this.client.on("error", () => {});
    this.workerClient.on("error", () => {});
    const common = { connection: this.workerClient, prefix: opts.prefix };
    this.queue = new Queue(this.name, {
      connection: this.client,
      prefix: opts.prefix,
      defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 1000 },
    });
    this.queue.on("error", () => {});
    this.worker = new Worker(this.name, (job, token) => this.process(job, token), {
      ...common,
      concurrency: opts.concurrency,
      lockDuration: this.lockMs,
      stalledInterval: opts.stalledIntervalMs ?? this.lockMs,
      maxStalledCount: 3,
      autorun: false,
    });
    this.worker.on("error", () => {});
    this.worker.on("stalled", () => opts.onRetry?.("stalled"));
  }

  /** Starts working jobs and arms the fleet's sweep (one scheduler, whatever the number of replicas). */
  async start(opts: { sweepAtStart: boolean }): Promise<void> {
    await this.queue.waitUntilReady();
    // The fleet's one scheduler: the last replica started sets its period; a period of 0 removes it.
    if (this.opts.sweepIntervalMs > 0)
      await this.queue.upsertJobScheduler(SWEEP, { every: this.opts.sweepIntervalMs }, { name: SWEEP });
    else await this.queue.removeJobScheduler(SWEEP);
    if (opts.sweepAtStart) await this.requestSweep();
    void this.worker.run();
  }

  /** Queues a sweep now; one already waiting absorbs it. */
  async requestSweep(): Promise<void> {
    await this.queue.add(SWEEP, {}, { deduplication: { id: SWEEP } });
  }

  /**
   * Queues a job; resolves once Redis holds it (`queued`) or holds a waiting job it was absorbed into
   * (`absorbed`: BullMQ answers with that job's id instead of the one given).
   */
  async enqueue(job: QueuedJob): Promise<Enqueued> {
    const jobId = randomUUID();
    const added = await this.queue.add(JOB, job, {
      jobId,
      deduplication: { id: `${job.repo}|${job.key}` },
      priority: PRIORITY[job.origin ?? "event"],
    });
    return added.id === jobId ? "queued" : "absorbed";
  }

  /** Jobs waiting, running or delayed in the whole fleet, by state. */
  async counts(): Promise<Record<(typeof JOB_STATES)[number], number>> {
    const counts = await this.queue.getJobCounts(...JOB_STATES);
    return Object.fromEntries(JOB_STATES.map((s) => [s, counts[s] ?? 0])) as Record<
      (typeof JOB_STATES)[number],
      number
    >;
  }

  /** Resolves when no job of the fleet waits, runs or is delayed (tests and graceful hand-over). */
  async idle(pollMs = 20): Promise<void> {
    for (;;) {
      const c = await this.counts();
      if (Object.values(c).every((n) => n === 0)) return;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Jobs this replica is running now. */
  get runningHere(): number {
    return this.here;
  }

  /** Whether Redis answers (for /healthz). */
  async ping(): Promise<boolean> {
    try {
      return (await this.client.ping()) === "PONG";
    } catch {
      return false;
    }
  }

  /**
   * Stops taking jobs. Graceful (default): the jobs running here finish first. `abandon`: they are
   * left as they are, as if this replica had died (another replica's stalled check takes them over).
   */
  async close(opts: { abandon?: boolean } = {}): Promise<void> {
    await this.worker.close(opts.abandon === true);
    await this.queue.close();
    this.client.disconnect();
    this.workerClient.disconnect();
  }

  private async process(job: Job, token: string | undefined): Promise<void> {
    if (job.name === SWEEP) {
      await this.opts.sweep(job.id ?? "");
      return;
    }
    const data = job.data as QueuedJob;
    const lockKey = `${this.opts.prefix}:${this.name}:repo-lock:${data.repo}`;
    const parkedKey = `${this.opts.prefix}:${this.name}:repo-parked:${data.repo}`;
    const owner = `${job.id}:${token ?? ""}`;
    const acquired = await this.workerClient.eval(ACQUIRE, 1, lockKey, owner, this.lockMs);
    if (acquired !== 1) {
      this.opts.onRetry?.("busy");
      // Woken by the lock's holder when it ends; the delay is the fallback (a holder that died).
      await this.workerClient
        .multi()
        .zadd(parkedKey, job.timestamp, job.id ?? "")
        .pexpire(parkedKey, this.lockMs * 10)
        .exec();
      await job.moveToDelayed(Date.now() + (this.opts.busyDelayMs ?? 500), token);
      throw new DelayedError();
    }
    await this.workerClient.zrem(parkedKey, job.id ?? "").catch(() => {});
    const renew = setInterval(() => {
      this.workerClient.eval(RENEW, 1, lockKey, owner, this.lockMs).catch(() => {});
    }, this.lockMs / 3);
    renew.unref();
    const start = performance.now();
    this.here++;
    try {
      // From here a new request for the same key queues behind this one instead of being absorbed.
      await job.removeDeduplicationKey();
      this.opts.onStart?.(Math.max(0, Date.now() - job.timestamp));
      await this.opts.run(data);
      this.opts.onDone?.({ repo: data.repo, key: data.key, ok: true, durationMs: performance.now() - start });
    } catch (error) {
      this.opts.onDone?.({
        repo: data.repo,
        key: data.key,
        ok: false,
        error,
        durationMs: performance.now() - start,
      });
      throw error;
    } finally {
      this.here--;
      clearInterval(renew);
      await this.workerClient.eval(RELEASE, 1, lockKey, owner).catch(() => {});
      await this.wakeParked(parkedKey).catch(() => {});
    }
  }

  /**
   * The repository's oldest parked job, back from the delayed set to the front of its class (events'
   * or the sweep's): every job queued after it waits behind it. If the repository is busy again by
   * then, it parks again and the next holder wakes it.
   */
  private async wakeParked(parkedKey: string): Promise<void> {
    const [id] = await this.workerClient.zpopmin(parkedKey);
    if (!id) return;
    const job = await Job.fromId(this.queue, id);
    if (!job) return;
    // Not delayed any more (its delay ran out, or it is running): promote refuses, which is fine.
    await job.promote().catch(() => {});
    await job.changePriority({ priority: job.opts.priority ?? 0, lifo: true }).catch(() => {});
  }
}
