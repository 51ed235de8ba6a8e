/** The timer functions the schedule uses; tests pass their own (no clock in tests). */
export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  setTimeout: (run, ms) => {
    const t = setTimeout(run, ms);
    // A pending sweep never keeps the process alive on its own.
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SweepScheduleOptions {
  /** Wait between the end of one sweep and the start of the next; 0 or less: no periodic sweep. */
  intervalMs: number;
  /** Sweep once at once (start-up), whatever the interval: what was missed while down is caught up now. */
  atStart: boolean;
  sweep: () => Promise<unknown>;
  /**
   * A sweep that threw: reported, and the next one still comes — after the interval, or after the
   * milliseconds returned (a spent rate limit's reset), even with no periodic sweep: a sweep that
   * failed is tried again.
   */
  onError: (err: unknown) => number | undefined;
  timers?: Timers;
}

export interface SweepSchedule {
  /** Sweeps started so far. */
  readonly count: number;
  /** No sweep starts after this; resolves once the one running (if any) has finished. */
  stop(): Promise<void>;
}

/**
 * The periodic sweep, one at a time: the next sweep is armed only when the previous one has finished
 * (thrown or not), so a sweep slower than the interval never overlaps itself and a failing one never
 * stops the ones after it. No timer is armed while a sweep runs.
 */
export function scheduleSweeps(opts: SweepScheduleOptions): SweepSchedule {
  const timers = opts.timers ?? REAL_TIMERS;
  let handle: unknown;
  let running: Promise<void> | undefined;
  let stopped = false;
  let count = 0;
  const arm = (ms: number) => {
    if (stopped) return;
    handle = timers.setTimeout(tick, ms);
  };
  function tick(): void {
    handle = undefined;
    if (stopped) return;
    count++;
    let retryMs: number | undefined;
    running = (async () => {
      try {
        await opts.sweep();
      } catch (err) {
        retryMs = opts.onError(err);
      }
    })().finally(() => {
      running = undefined;
      if (retryMs !== undefined) arm(retryMs);
      else if (opts.intervalMs > 0) arm(opts.intervalMs);
    });
  }
  if (opts.atStart) arm(0);
  else if (opts.intervalMs > 0) arm(opts.intervalMs);
  return {
    get count() {
      return count;
    },
    async stop() {
      stopped = true;
      if (handle !== undefined) timers.clearTimeout(handle);
      handle = undefined;
      await running;
    },
  };
}
