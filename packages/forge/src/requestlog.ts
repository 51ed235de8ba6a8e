/** One API or git request as the forge saw it. */
export interface LoggedRequest {
  method: string;
  /** The route template (`/repos/{owner}/{repo}/pulls/{pull_number}`), or the raw path when unrouted. */
  route: string;
  path: string;
  installationId: number | null;
  login: string | null;
  status: number;
  /** When the forge answered it (`performance.now()` of the forge's process, ms): for timelines. */
  at: number;
}

/** Every request served, in order, for tests that count API calls per operation. */
export class RequestLog {
  readonly entries: LoggedRequest[] = [];

  record(e: Omit<LoggedRequest, "at">): void {
    this.entries.push({ ...e, at: performance.now() });
  }

  /** Requests matching all given fields. */
  filter(
    q: Partial<Pick<LoggedRequest, "method" | "route" | "installationId" | "status" | "login">>,
  ): LoggedRequest[] {
    const keys = Object.keys(q) as (keyof typeof q)[];
    return this.entries.filter((e) => keys.every((k) => e[k] === q[k]));
  }

  count(
    q: Partial<Pick<LoggedRequest, "method" | "route" | "installationId" | "status" | "login">> = {},
  ): number {
    return this.filter(q).length;
  }

  /** Counts per `METHOD route`, for a quick look at what a flow cost. */
  summary(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const e of this.entries) {
      const k = `${e.method} ${e.route}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  clear(): void {
    this.entries.length = 0;
  }
}
