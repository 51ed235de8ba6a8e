import PQueue from "p-queue";

/**
 * One queue per repository: a repository's jobs run one at a time, in arrival order, so two quick
 * pushes or two commands never race; different repositories run in parallel (up to `concurrency`).
 *
 * Jobs are level-triggered (each reads the current state and moves it one step), so a job already
 * waiting with the same key is not queued twice: the waiting one will see the newer state anyway.
 */
export interface JobSpec {
  /** `owner/repo`: jobs with the same repository never overlap. */
  repo: string;
  /** Identifies the work (e.g. `render:drafts/app/v2`); a pending job with the same key absorbs this one. */
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

export class RepoQueues {
  private readonly all: PQueue;
  private readonly perRepo = new Map<string, PQueue>();
  private readonly pending = new Map<string, Promise<JobOutcome>>();
  private closed = false;

  constructor(
    concurrency: number,
    private readonly onDone: (outcome: JobOutcome) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.all = new PQueue({ concurrency });
  }

  /** Queues a job; resolves when it (or the pending job it was merged into) has run. Never rejects. */
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
    const waiting = this.pending.get(id);
    if (waiting) return waiting;
    let queue = this.perRepo.get(job.repo);
    if (!queue) {
      queue = new PQueue({ concurrency: 1 });
      this.perRepo.set(job.repo, queue);
    }
    const outcome = queue.add(async () => {
      this.pending.delete(id);
      return this.all.add(() => this.runOne(job)) as Promise<JobOutcome>;
    }) as Promise<JobOutcome>;
    this.pending.set(id, outcome);
    return outcome;
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
