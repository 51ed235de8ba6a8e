import PQueue from "p-queue";

/**
 * One queue per repository: a repository's jobs run one at a time, in arrival order, so two quick
 * pushes or two commands never race; different repositories run in parallel (up to `concurrency`).
 *
 * Jobs are level-triggered (each reads the current state and moves it one step), so a job already
 * *waiting* with the same key is not queued twice: the newer request takes the waiting one's place
 * (its `run` is the one that runs, so the newest event's head and token are used) and both callers
 * get the same outcome. A job that has *started* never absorbs a new one: the new one queues behind
 * it and runs after it, so a push made while its predecessor is being rendered is rendered too.
 */
export interface JobSpec {
  /** `owner/repo`: jobs with the same repository never overlap. */
  repo: string;
  /** Identifies the work (e.g. `render:drafts/app/v2`); a waiting job with the same key absorbs this one. */
  key: string;
  run: () => Promise<void>;
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
  outcome: Promise<JobOutcome>;
}

export class RepoQueues {
  private readonly all: PQueue;
  private readonly perRepo = new Map<string, PQueue>();
  /** Jobs queued and not started, by repository and key. An entry leaves the map when its job starts. */
  private readonly waiting = new Map<string, Waiting>();
  private closed = false;

  constructor(
    concurrency: number,
    private readonly onDone: (outcome: JobOutcome) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.all = new PQueue({ concurrency });
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
    const queued = this.waiting.get(id);
    if (queued) {
      queued.job = job;
      return queued.outcome;
    }
    let queue = this.perRepo.get(job.repo);
    if (!queue) {
      queue = new PQueue({ concurrency: 1 });
      this.perRepo.set(job.repo, queue);
    }
    // The entry is in the map before the task can start, whether p-queue starts it now or later,
    // and the task removes exactly this entry: nothing depends on when p-queue calls it.
    let settle!: (outcome: JobOutcome) => void;
    const entry: Waiting = { job, outcome: new Promise((resolve) => (settle = resolve)) };
    this.waiting.set(id, entry);
    void queue.add(async () => {
      if (this.waiting.get(id) === entry) this.waiting.delete(id);
      settle(await (this.all.add(() => this.runOne(entry.job)) as Promise<JobOutcome>));
    });
    return entry.outcome;
  }

  private async runOne(job: JobSpec): Promise<JobOutcome> {
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
    let n = 0;
    for (const q of this.perRepo.values()) n += q.size + q.pending;
    return n;
  }

  /** Resolves when every queued job has run. */
  async idle(): Promise<void> {
    while (this.size > 0) {
      await Promise.all([...this.perRepo.values()].map((q) => q.onIdle()));
    }
  }

  /** Stops taking jobs and waits for the queued ones (graceful shutdown: nothing left half-done). */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }
}
