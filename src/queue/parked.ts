/**
 * Jobs parked until a rate limit resets. A job that meets a spent GitHub budget whose reset is further
 * away than the app waits inside a call (`maxWaitS`) does not hold its queue's slot for up to an hour:
 * it is taken off the queue, kept here with the time the budget comes back, and queued again once that
 * time has come (through whichever queue the app uses: in this process or Redis). While jobs are
 * parked, /healthz says the app is degraded and why.
 *
 * Parked jobs live in this process only: a stop (SIGTERM) leaves them, and the next start's sweep, which
 * reconciles every repository, does what they would have done (jobs are level-triggered).
 */
export interface ParkReason {
  /** The installation whose budget is spent (its id), as the health report names it. */
  installation: string;
  /** When to try again (ms since the epoch, on the app's clock). */
  until: number;
  /** What GitHub said, e.g. "API rate limit exceeded for installation ID 12. (HTTP 403)". */
  reason: string;
}

/** An installation whose budget is spent, as the parked jobs tell it: the latest reset, and how many wait. */
export interface SpentBudget extends ParkReason {
  jobs: number;
}

interface Parked<T> extends ParkReason {
  job: T;
}

export interface ParkedJobsOptions<T> {
  /** The app's clock, in ms since the epoch. */
  now: () => number;
  /** How often parked jobs are looked at to see whether their time has come. */
  pollMs: number;
  /** Queues a job again (its time has come). */
  release: (job: T) => void;
  /** Told the number parked after every change (the metrics' gauge). */
  onChange?: (size: number) => void;
}

export class ParkedJobs<T> {
  /** By job identity (repository and key): a job parked again replaces itself. */
  private readonly jobs = new Map<string, Parked<T>>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly opts: ParkedJobsOptions<T>) {}

  /** Parks `job` (identified by `id`) until `park.until`. */
  park(id: string, job: T, park: ParkReason): void {
    this.jobs.set(id, { ...park, job });
    this.opts.onChange?.(this.jobs.size);
    if (!this.timer) {
      this.timer = setInterval(() => this.releaseDue(), this.opts.pollMs);
      this.timer.unref();
    }
  }

  get size(): number {
    return this.jobs.size;
  }

  /**
   * The installations whose budget is spent now, each with its latest reset and reason, and its jobs;
   * with `of`, only those of the parked jobs it picks.
   */
  spent(of?: (job: T) => boolean): SpentBudget[] {
    const now = this.opts.now();
    const by = new Map<string, SpentBudget>();
    for (const p of this.jobs.values()) {
      if (of && !of(p.job)) continue;
      const seen = by.get(p.installation);
      if (!seen)
        by.set(p.installation, { installation: p.installation, until: p.until, reason: p.reason, jobs: 1 });
      else by.set(p.installation, { ...(p.until > seen.until ? p : seen), jobs: seen.jobs + 1 });
    }
    return [...by.values()].map((s) => ({ ...s, until: Math.max(s.until, now) }));
  }

  /** Queues again every job whose time has come; returns how many. */
  releaseDue(): number {
    const now = this.opts.now();
    const due = [...this.jobs].filter(([, p]) => p.until <= now);
    for (const [id] of due) this.jobs.delete(id);
    if (this.jobs.size === 0) this.stopTimer();
    if (due.length > 0) this.opts.onChange?.(this.jobs.size);
    for (const [, p] of due) this.opts.release(p.job);
    return due.length;
  }

  /** Stops looking (shutdown); returns the jobs left parked, for the next start's sweep. */
  close(): number {
    this.stopTimer();
    const left = this.jobs.size;
    this.jobs.clear();
    return left;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
