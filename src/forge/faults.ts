/** A fault to inject into requests matching a route template (and method). */
export interface FaultSpec {
  /** Route template as GitHub documents it (`/repos/{owner}/{repo}/pulls`), or a git one (`/{owner}/{repo}.git/git-receive-pack`). */
  route: string;
  method?: string;
  /** Answer with this status and GitHub's error shape instead of handling the request. */
  status?: number;
  message?: string;
  /** Wait before handling (or before failing). */
  delayMs?: number;
  /** Drop the connection without an answer. */
  reset?: boolean;
  /**
   * Runs, and is awaited, before the request is handled (from code only): lets a test act at an exact
   * point of a job, e.g. merge a pull request between the bot's read of it and its merge call.
   */
  before?: () => unknown;
  /** How many matching requests to affect (default: all, until removed). */
  times?: number;
}

export interface ActiveFault extends FaultSpec {
  /** How many requests this fault has affected. */
  hits: number;
}

/** Per-route fault injection: HTTP errors, latency and connection resets, switchable from tests. */
export class Faults {
  private readonly active: ActiveFault[] = [];

  add(spec: FaultSpec): ActiveFault {
    const f: ActiveFault = { ...spec, hits: 0 };
    this.active.push(f);
    return f;
  }

  remove(f: ActiveFault): void {
    const i = this.active.indexOf(f);
    if (i >= 0) this.active.splice(i, 1);
  }

  clear(): void {
    this.active.length = 0;
  }

  /** The fault to apply to a request, counting it; exhausted faults are removed. */
  take(method: string, route: string): ActiveFault | undefined {
    const f = this.active.find(
      (x) => x.route === route && (!x.method || x.method.toUpperCase() === method.toUpperCase()),
    );
    if (!f) return undefined;
    f.hits += 1;
    if (f.times !== undefined && f.hits >= f.times) this.remove(f);
    return f;
  }
}
