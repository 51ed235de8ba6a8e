/** A fault to inject into requests matching a route template (and method). */
export interface FaultSpec {
  /**
   * Route template as GitHub documents it (`/repos/{owner}/{repo}/pulls`), or a git one
   * (`/{owner}/{repo}.git/git-receive-pack`); `*`: every request a more specific fault does not match
   * (with `delayMs`, the network's latency to GitHub, as the fleet bench's `latency` scenario uses it).
   */
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
   * Hold the request unanswered until the fault is released (`release`, `remove`, `clear`) — then it is
   * answered as the rest of the fault says, or handled normally — or until the client goes away (a
   * process killed mid-request). For tests that stop a client at exactly that request.
   */
  hang?: boolean;
  /** How many matching requests to affect (default: all, until removed). */
  times?: number;
}

export interface ActiveFault extends FaultSpec {
  /** How many requests this fault has affected. */
  hits: number;
}

/** Per-route fault injection: HTTP errors, latency, connection resets and held requests. */
export class Faults {
  private readonly active: ActiveFault[] = [];
  /** Requests held by hang faults: how to let each go. */
  private readonly held = new Map<ActiveFault, Set<() => void>>();

  add(spec: FaultSpec): ActiveFault {
    const f: ActiveFault = { ...spec, hits: 0 };
    this.active.push(f);
    return f;
  }

  /** Stops applying `f`, and lets the requests it holds go. */
  remove(f: ActiveFault): void {
    const i = this.active.indexOf(f);
    if (i >= 0) this.active.splice(i, 1);
    this.release(f);
  }

  clear(): void {
    this.active.length = 0;
    for (const f of [...this.held.keys()]) this.release(f);
  }

  /** Lets the requests a hang fault holds go (they are answered as the fault says, or handled). */
  release(f: ActiveFault): void {
    const waiting = this.held.get(f);
    this.held.delete(f);
    for (const go of waiting ?? []) go();
  }

  /** Requests a hang fault holds now. */
  holding(f: ActiveFault): number {
    return this.held.get(f)?.size ?? 0;
  }

  /** Resolves when `f` is released or `gone` fires (the client went away), whichever comes first. */
  hold(f: ActiveFault, gone: (go: () => void) => void): Promise<void> {
    return new Promise((resolve) => {
      let set = this.held.get(f);
      if (!set) {
        set = new Set();
        this.held.set(f, set);
      }
      const go = () => {
        this.held.get(f)?.delete(go);
        resolve();
      };
      set.add(go);
      gone(go);
    });
  }

  /** The fault to apply to a request, counting it; exhausted faults are removed. */
  take(method: string, route: string): ActiveFault | undefined {
    const matches = (x: ActiveFault, r: string) =>
      x.route === r && (!x.method || x.method.toUpperCase() === method.toUpperCase());
    const f = this.active.find((x) => matches(x, route)) ?? this.active.find((x) => matches(x, "*"));
    if (!f) return undefined;
    f.hits += 1;
    // Exhausted: no further request is affected, but the ones it holds stay held until released.
    if (f.times !== undefined && f.hits >= f.times) this.active.splice(this.active.indexOf(f), 1);
    return f;
  }
}
