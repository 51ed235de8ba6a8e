import { randomUUID } from "node:crypto";
import { DelayedError, type Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { DONE, ENQUEUE, START, scriptReply, type Turn, turnsOf } from "./fair-redis.js";
import { installationOf } from "./fair-turns.js";
import type { Enqueued, JobOrigin } from "./repo-queue.js";

/**
 * The job queue shared by several replicas, on BullMQ (docs/scaling.md says why this shape):
 *
 * - a job waits in Redis in its repository's own list (src/queue/fair-redis.ts); the BullMQ queue holds
 *   *turns*, one per repository ready to run (one with a job waiting and none running), and each
 *   replica's worker takes up to `concurrency` of them at once. A worker that takes a turn runs the job
 *   whose turn it is at that moment, by the rules of one process (src/queue/fair-turns.ts): one job per
 *   repository at a time; a repository with an event's job waiting before any with only the sweep's
 *   (their turns also carry BullMQ's `priority` 1, so the events' are taken first); among them,
 *   installations take turns and, within one, its repositories. So a repository with a deep backlog
 *   never makes another repository's job wait beyond its own turn;
 * - a job *waiting* with the same repository and key absorbs a new one (the newest request's payload
 *   is the one that runs); the job stops absorbing when it starts, so one *running* never absorbs one:
 *   the new request waits and runs after it;
 * - every step (queue, start, done) is one Lua script: a replica killed between two leaves a job in
 *   its repository's list or bound to a turn that BullMQ holds (and runs again if its replica died).
 *   A turn is added to BullMQ after the script that issued it, with the turn's id as BullMQ's job id,
 *   so adding it twice adds it once; every `stalledIntervalMs` each replica adds the turns issued that
 *   BullMQ does not have, and ends the turns BullMQ failed without us (stalled too often): a job is
 *   never lost on a `kill -9`;
 * - the repository lock stays as the guard against two runs of one job at once (BullMQ may take a
 *   replica that is only slow for dead): a job takes it (owner: the turn and BullMQ's lock token for
 *   this attempt) before it runs; if it is held, the turn goes back to BullMQ's delayed set for
 *   `busyDelayMs`, freeing the worker;
 * - a replica that dies mid-job stops renewing BullMQ's job lock and the repository lock; another
 *   replica's stalled-job check moves the turn back to waiting, and its job runs again once the
 *   repository lock has expired (the jobs are level-triggered: running one again ends in the same state);
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
  /** How long a job whose repository is locked by another attempt waits before it is looked at again. Default 500. */
  busyDelayMs?: number;
  onDone?(outcome: RedisJobOutcome): void;
  /** A job started again: its replica died (`stalled`), or its repository was locked by another attempt (`busy`). */
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
  /** JSON-safe data the runner needs (a waiting job's is replaced by the newest request's). */
  payload: unknown;
}

interface RedisJobOutcome {
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
const BULLMQ_STATES = ["waiting", "active", "delayed", "prioritized"] as const;
/** BullMQ's (of turns and sweeps), and `held`: jobs queued and not started. */
const JOB_STATES = [...BULLMQ_STATES, "held"] as const;

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
  /** Where the fair queue's keys live (src/queue/fair-redis.ts). */
  private readonly base: string;
  private repairTimer: NodeJS.Timeout | undefined;
  private here = 0;

  constructor(private readonly opts: RedisQueueOptions) {
    this.name = opts.name ?? "jobs";
    this.lockMs = opts.lockMs ?? 30_000;
    this.base = `${opts.prefix}:${this.name}:fair`;
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
    await this.repair().catch(() => {});
    this.repairTimer = setInterval(
      () => void this.repair().catch(() => {}),
      this.opts.stalledIntervalMs ?? this.lockMs,
    );
    this.repairTimer.unref();
    void this.worker.run();
  }

  /** Queues a sweep now; one already waiting absorbs it. */
  async requestSweep(): Promise<void> {
    await this.queue.add(SWEEP, {}, { deduplication: { id: SWEEP } });
  }

  /**
   * Queues a job; resolves once Redis holds it (`queued`) or holds a waiting job it was absorbed into
   * (`absorbed`). Rejects when Redis does not answer (the webhook is answered 503).
   */
  async enqueue(job: QueuedJob): Promise<Enqueued> {
    const answer = scriptReply(
      await this.client.eval(
        ENQUEUE,
        0,
        this.base,
        job.repo,
        job.key,
        installationOf(job.repo),
        job.origin ?? "event",
        JSON.stringify(job.payload ?? null),
        randomUUID(),
        Date.now(),
      ),
      "enqueue",
    );
    await this.addTurns(turnsOf(answer, 1));
    return answer[0] === "absorbed" ? "absorbed" : "queued";
  }

  /** Adds turns to BullMQ; one that fails is added by the next repair. */
  private async addTurns(turns: Turn[]): Promise<void> {
    for (const { id, cls } of turns)
      await this.queue.add(JOB, {}, { jobId: id, priority: PRIORITY[cls] }).catch(() => {});
  }

  /**
   * What a replica killed at the wrong moment, or Redis gone for a moment, may leave: turns issued
   * that BullMQ does not have, added now; turns BullMQ ended without our end (stalled too often, or our
   * end lost), ended now, so that their repository's next job gets in line.
   */
  async repair(): Promise<void> {
    const [issued, bound] = await Promise.all([
      this.workerClient.hgetall(`${this.base}:turns`),
      this.workerClient.hgetall(`${this.base}:bound`),
    ]);
    for (const [id, cls] of Object.entries(issued))
      if ((await this.queue.getJobState(id)) === "unknown")
        await this.addTurns([{ id, cls: cls === "sweep" ? "sweep" : "event" }]);
    for (const id of Object.keys(bound))
      if (["completed", "failed", "unknown"].includes(await this.queue.getJobState(id)))
        await this.script(DONE, id);
  }

  /** Runs a script of the fair queue for turn `id` on the worker's connection, and adds the turns it issued. */
  private async script(lua: typeof START | typeof DONE, id: string): Promise<unknown[]> {
    const answer = scriptReply(
      await this.workerClient.eval(lua, 0, this.base, id),
      lua === START ? "start" : "done",
    );
    await this.addTurns(turnsOf(answer, lua === START ? (answer[0] === 1 ? 7 : 1) : 0));
    return answer;
  }

  /** Jobs waiting, running or delayed in the whole fleet, by state. */
  async counts(): Promise<Record<(typeof JOB_STATES)[number], number>> {
    const [counts, jobs, busy] = await Promise.all([
      this.queue.getJobCounts(...BULLMQ_STATES),
      this.client.scard(`${this.base}:jobs`),
      this.client.hlen(`${this.base}:busy`),
    ]);
    return {
      ...(Object.fromEntries(BULLMQ_STATES.map((s) => [s, counts[s] ?? 0])) as Record<
        (typeof BULLMQ_STATES)[number],
        number
      >),
      held: Math.max(0, jobs - busy),
    };
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
    clearInterval(this.repairTimer);
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
    const turn = job.id ?? "";
    const started = await this.startOrPutBack(job, token, turn);
    // No repository ready (its job was taken by another turn), or this turn's job done already.
    if (started[0] !== 1) return;
    const [, , repo, key, origin, payload, at] = started.map(String);
    const data: QueuedJob = {
      repo: repo ?? "",
      key: key ?? "",
      origin: origin === "sweep" ? "sweep" : "event",
      payload: JSON.parse(payload ?? "null"),
    };
    const lockKey = `${this.opts.prefix}:${this.name}:repo-lock:${data.repo}`;
    const owner = `${turn}:${token ?? ""}`;
    const acquired = await this.workerClient.eval(ACQUIRE, 1, lockKey, owner, this.lockMs);
    if (acquired !== 1) {
      // Another attempt of this turn (its replica taken for dead, still running) holds the repository.
      this.opts.onRetry?.("busy");
      await job.moveToDelayed(Date.now() + (this.opts.busyDelayMs ?? 500), token);
      throw new DelayedError();
    }
    const renew = setInterval(() => {
      this.workerClient.eval(RENEW, 1, lockKey, owner, this.lockMs).catch(() => {});
    }, this.lockMs / 3);
    renew.unref();
    try {
      await this.runHere(data, Number(at));
    } finally {
      clearInterval(renew);
      await this.workerClient.eval(RELEASE, 1, lockKey, owner).catch(() => {});
      // The repository's next job gets in line; if Redis misses this, the repair does it.
      await this.script(DONE, turn).catch(() => {});
    }
  }

  /**
   * Takes the job whose turn it is: from here a new request for its key queues behind it instead of
   * being absorbed. If Redis does not answer, the turn goes back to the delayed set instead of failing
   * (a failed turn is ended by the repair, its job's work left to the sweep).
   */
  private async startOrPutBack(job: Job, token: string | undefined, turn: string): Promise<unknown[]> {
    try {
      return await this.script(START, turn);
    } catch (err) {
      await job.moveToDelayed(Date.now() + (this.opts.busyDelayMs ?? 500), token).catch(() => {
        throw err;
      });
      throw new DelayedError();
    }
  }

  private async runHere(data: QueuedJob, queuedAt: number): Promise<void> {
    const start = performance.now();
    this.here++;
    try {
      this.opts.onStart?.(Math.max(0, Date.now() - queuedAt));
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
    }
  }
}
