import { FairTurns, installationOf } from "./fair-turns.js";

/**
 * One queue per repository: a repository's jobs run one at a time, in arrival order, so two quick
 * pushes or two commands never race; different repositories run in parallel (up to `concurrency`).
 * A free slot goes to whoever's turn it is (src/queue/fair-turns.ts): installations take turns, and
 * within an installation its repositories take turns, so a repository with a deep backlog (or an
 * installation with many busy repositories) holds one slot at a time and never makes another
 * repository's job wait for more than its own turn.
 *
 * Jobs are level-triggered (each reads the current state and moves it one step), so a job already
 * *waiting* with the same key is not queued twice: the newer request takes the waiting one's place
 * (its `run` is the one that runs, so the newest event's head and token are used) and both callers
 * get the same outcome. A job that has *started* never absorbs a new one: the new one queues behind
 * it and runs after it, so a push made while its predecessor is being rendered is rendered too.
 *
 * Jobs a user's event started (`origin: "event"`, the default) take a free slot before the periodic
 * sweep's (`origin: "sweep"`): a sweep of hundreds of repositories never makes a push or a command
 * wait for it. Within one repository the order stays arrival order; a repository with an event's job
 * waiting is served in the events' turns, its sweep jobs ahead of that job included, so that
 * repository is not left behind the rest of the sweep either.
 */
export type JobOrigin = "event" | "sweep";

/**
 * What became of a request: a job of its own (`queued`), or taken in by a job with the same key that was
 * already waiting (`absorbed`), whose run does the work of both. A command's comment that started no job
 * of its own gets no 👀: its answer comes with the waiting job's.
 */
export type Enqueued = "queued" | "absorbed";

export interface JobSpec {
  /** `owner/repo`: jobs with the same repository never overlap. */
  repo: string;
  /** Identifies the work (e.g. `render:drafts/app/v2`); a waiting job with the same key absorbs this one. */
  key: string;
  run: () => Promise<void>;
  /** What caused it: a user's event (default) or the periodic sweep, whose jobs wait for the events'. */
  origin?: JobOrigin;
}

export interface JobOutcome {
  repo: string;
  key: string;
  ok: boolean;
  error?: unknown;
  durationMs: number;
}

/** A job queued and not yet started: the spec it will run (the newest absorbed) and its outcome. */
interface Waiting {
  job: JobSpec;
  /** `event` once any job it absorbed was an event's. */
  origin: JobOrigin;
  outcome: Promise<JobOutcome>;
  settle: (outcome: JobOutcome) => void;
}

/** A repository's jobs not yet started, in arrival order, and whether one of its jobs runs. */
interface Repo {
  repo: string;
  installation: string;
  jobs: Waiting[];
  /** Event jobs among `jobs`: while there is one, the repository is served in the events' turns. */
  events: number;
  running: boolean;
}

export class RepoQueues {
  private readonly perRepo = new Map<string, Repo>();
  private readonly turns = new FairTurns();
  /** Jobs queued and not started, by repository and key. An entry leaves the map when its job starts. */
  private readonly waiting = new Map<string, Waiting>();
  private running = 0;
  private queued = 0;
  private idlers: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly concurrency: number,
    private readonly onDone: (outcome: JobOutcome) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether a job of `repo` with `key` waits (queued, not started): a request for it now is absorbed. */
  isWaiting(repo: string, key: string): boolean {
    return !this.closed && this.waiting.has(`${repo}\0${key}`);
  }

  /** Queues a job; resolves when it (or the waiting job it was merged into) has run. Never rejects. */
  enqueue(job: JobSpec): Promise<JobOutcome> {
    if (this.closed) {
      return Promise.resolve({
        repo: job.repo,
        key: job.key,
        ok: false,
        error: new Error("shutting down"),
        durationMs: 0,
      });
    }
    const id = `${job.repo}\0${job.key}`;
    const r = this.repoOf(job.repo);
    const queued = this.waiting.get(id);
    if (queued) {
      if (origin(job) === "event" && queued.origin === "sweep") {
        queued.origin = "event";
        this.eventArrived(r);
      }
      queued.job = job;
      return queued.outcome;
    }
    let settle!: (outcome: JobOutcome) => void;
    const entry: Waiting = {
      job,
      origin: origin(job),
      outcome: new Promise((resolve) => (settle = resolve)),
      settle,
    };
    this.waiting.set(id, entry);
    r.jobs.push(entry);
    this.queued++;
    if (entry.origin === "event") this.eventArrived(r);
    if (!r.running && r.jobs.length === 1) this.turns.ready(r, r.events > 0 ? "event" : "sweep");
    this.startNext();
    return entry.outcome;
  }

  private repoOf(repo: string): Repo {
    let r = this.perRepo.get(repo);
    if (!r) {
      r = { repo, installation: installationOf(repo), jobs: [], events: 0, running: false };
      this.perRepo.set(repo, r);
    }
    return r;
  }

  /** An event's job now waits in `r`: a repository in line for the sweep's turns moves to the events'. */
  private eventArrived(r: Repo): void {
    r.events++;
    if (!r.running) this.turns.raise(r);
  }

  /** Fills the free slots, each with the job whose turn it is. */
  private startNext(): void {
    while (this.running < this.concurrency) {
      const turn = this.turns.next();
      if (!turn) return;
      const r = this.perRepo.get(turn.repo);
      const entry = r?.jobs.shift();
      if (!r || !entry) continue;
      const id = `${entry.job.repo}\0${entry.job.key}`;
      if (this.waiting.get(id) === entry) this.waiting.delete(id);
      if (entry.origin === "event") r.events--;
      this.queued--;
      this.running++;
      r.running = true;
      void this.runOne(entry.job).then((outcome) => {
        this.running--;
        r.running = false;
        if (r.jobs.length > 0) this.turns.ready(r, r.events > 0 ? "event" : "sweep");
        entry.settle(outcome);
        this.startNext();
        if (this.size === 0) for (const idle of this.idlers.splice(0)) idle();
      });
    }
  }

  private async runOne(job: JobSpec): Promise<JobOutcome> {
    // The job starts on a later tick than the enqueue that freed it: a caller never runs it inline.
    await Promise.resolve();
    const start = this.now();
    let outcome: JobOutcome;
    try {
      await job.run();
      outcome = { repo: job.repo, key: job.key, ok: true, durationMs: this.now() - start };
    } catch (error) {
      outcome = { repo: job.repo, key: job.key, ok: false, error, durationMs: this.now() - start };
    }
    this.onDone(outcome);
    return outcome;
  }

  /** Jobs waiting or running, across repositories. */
  get size(): number {
    return this.queued + this.running;
  }

  /** Resolves when every queued job has run. */
  async idle(): Promise<void> {
    if (this.size === 0) return;
    await new Promise<void>((resolve) => this.idlers.push(resolve));
  }

  /** Jobs running now. */
  get runningJobs(): number {
    return this.running;
  }

  /**
   * Drops every job not started yet (a stop past its grace: the sweep of the next start does their
   * work), each settled as failed with `error`. Returns how many there were.
   */
  dropWaiting(error: Error): number {
    let dropped = 0;
    for (const r of this.perRepo.values()) {
      for (const entry of r.jobs.splice(0)) {
        this.waiting.delete(`${entry.job.repo}\0${entry.job.key}`);
        entry.settle({ repo: entry.job.repo, key: entry.job.key, ok: false, error, durationMs: 0 });
        dropped++;
      }
      r.events = 0;
    }
    this.queued -= dropped;
    if (this.size === 0) for (const idle of this.idlers.splice(0)) idle();
    return dropped;
  }

  /** Stops taking jobs and waits for the queued ones (graceful shutdown: nothing left half-done). */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }
}

function origin(job: JobSpec): JobOrigin {
  return job.origin ?? "event";
}
