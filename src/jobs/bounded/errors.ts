/**
 * Package work (a render, a guardrail run, a merge, a variant's mutation) that ran past the operator's
 * bound (PORCHLIGHT_RENDER_TIMEOUT_MS): its worker thread was stopped, whatever it was doing.
 */
export class WorkTookTooLong extends Error {
  constructor(
    /** What was stopped, as a user reads it ("rendering the package"). */
    readonly what: string,
    readonly afterMs: number,
  ) {
    super(
      `${what} took too long: porchlight stopped it after ${seconds(afterMs)} (the operator's bound, PORCHLIGHT_RENDER_TIMEOUT_MS)`,
    );
    this.name = "WorkTookTooLong";
  }
}

/** The worker thread doing package work stopped on its own (out of memory, a crash): the work is lost. */
export class WorkerStopped extends Error {
  constructor(what: string, why: string) {
    super(`${what} stopped: ${why}`);
    this.name = "WorkerStopped";
  }
}

/** A bound in milliseconds as a person reads it: "90 s", "0.5 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 1 : 0))} s`;
}
