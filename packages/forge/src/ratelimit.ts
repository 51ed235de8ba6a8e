import { ApiError } from "./http.js";

const RATE_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api";
const HOUR_MS = 60 * 60 * 1000;

export interface SecondaryLimit {
  /** Refuse every n-th mutating request (POST/PATCH/PUT/DELETE). */
  everyNthMutation?: number;
  /**
   * Refuse mutating requests beyond this many within a forge-clock minute, counted per user or
   * installation as GitHub counts its content-creation limit (80 a minute): one installation's
   * burst does not use up another's.
   */
  perMinute?: number;
  /** Seconds sent in `retry-after` (default 1). */
  retryAfter?: number;
  /** 403 (default, as GitHub mostly does) or 429. */
  status?: 403 | 429;
}

interface Bucket {
  used: number;
  resetAt: number;
}

export interface RateSnapshot {
  limit: number;
  remaining: number;
  reset: number;
  used: number;
}

/**
 * GitHub's REST rate limits, switchable from tests: the primary limit per installation/user
 * (`x-ratelimit-*` headers, 403 when exhausted) and an optional secondary limit on mutations.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private limit = 5000;
  private primaryStatus: 403 | 429 = 403;
  /** How long a window of the primary limit lasts (GitHub's hour; tests shorten it). */
  private windowMs = HOUR_MS;
  private secondaryCfg: SecondaryLimit | null = null;
  private mutations = 0;
  /** Mutations of the last forge-clock minute, per principal (`perMinute`). */
  private recentMutations = new Map<string, number[]>();

  constructor(private readonly now: () => Date) {}

  /**
   * Sets the primary limit per principal (default 5000 an hour), the status when exhausted, and the
   * length of a window (default an hour: a spent budget comes back `windowMs` after its window opened,
   * on the forge's clock).
   */
  primary(opts: { limit?: number; status?: 403 | 429; windowMs?: number }): void {
    if (opts.limit !== undefined) this.limit = opts.limit;
    if (opts.windowMs !== undefined) this.windowMs = opts.windowMs;
    if (opts.status) this.primaryStatus = opts.status;
  }

  /** Uses up the primary limit of every principal (or of one key, e.g. `installation:12`). */
  exhaust(key?: string): void {
    for (const [k, b] of this.buckets) if (!key || k === key) b.used = this.limit;
    if (key && !this.buckets.has(key)) this.buckets.set(key, { used: this.limit, resetAt: this.windowEnd() });
    if (!key) this.exhaustAll = true;
  }

  private exhaustAll = false;

  /** Turns the secondary limit on (or off with null). */
  secondary(cfg: SecondaryLimit | null): void {
    this.secondaryCfg = cfg;
    this.mutations = 0;
    this.recentMutations = new Map();
  }

  /** Back to a fresh window for everyone, no secondary limit. */
  reset(): void {
    this.buckets.clear();
    this.exhaustAll = false;
    this.secondary(null);
  }

  private windowEnd(): number {
    return this.now().getTime() + this.windowMs;
  }

  private bucket(key: string): Bucket {
    const nowMs = this.now().getTime();
    let b = this.buckets.get(key);
    if (!b || b.resetAt <= nowMs) {
      b = { used: this.exhaustAll ? this.limit : 0, resetAt: this.windowEnd() };
      this.buckets.set(key, b);
    }
    return b;
  }

  snapshot(key: string): RateSnapshot {
    const b = this.bucket(key);
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - b.used),
      reset: Math.ceil(b.resetAt / 1000),
      used: b.used,
    };
  }

  /**
   * Counts one request; returns the headers to send, or throws the 403/429 GitHub would send.
   * `who` names the limited principal in the message ("installation ID 12").
   */
  check(key: string, who: string, mutation: boolean): Record<string, string> {
    const b = this.bucket(key);
    const headers = () => this.headers(key);
    if (b.used >= this.limit) {
      throw new ApiError(this.primaryStatus, `API rate limit exceeded for ${who}.`, {
        headers: headers(),
        documentationUrl: `${RATE_DOCS}#about-the-primary-rate-limit`,
      });
    }
    if (mutation) this.checkSecondary(key, headers);
    b.used += 1;
    return headers();
  }

  /**
   * Gives back the request `check` counted: a conditional request answered 304 Not Modified, which
   * GitHub does not count against the primary limit. Returns the headers to send with the 304.
   */
  uncount(key: string): Record<string, string> {
    const b = this.bucket(key);
    b.used = Math.max(0, b.used - 1);
    return this.headers(key);
  }

  private headers(key: string): Record<string, string> {
    const s = this.snapshot(key);
    return {
      "x-ratelimit-limit": String(s.limit),
      "x-ratelimit-remaining": String(s.remaining),
      "x-ratelimit-reset": String(s.reset),
      "x-ratelimit-used": String(s.used),
      "x-ratelimit-resource": "core",
    };
  }

  private checkSecondary(key: string, headers: () => Record<string, string>): void {
    const cfg = this.secondaryCfg;
    if (!cfg) return;
    this.mutations += 1;
    const nowMs = this.now().getTime();
    const recent = (this.recentMutations.get(key) ?? []).filter((t) => t > nowMs - 60_000);
    recent.push(nowMs);
    this.recentMutations.set(key, recent);
    const hit =
      (cfg.everyNthMutation !== undefined && this.mutations % cfg.everyNthMutation === 0) ||
      (cfg.perMinute !== undefined && recent.length > cfg.perMinute);
    if (!hit) return;
    throw new ApiError(
      cfg.status ?? 403,
      "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      {
        headers: { ...headers(), "retry-after": String(cfg.retryAfter ?? 1) },
        documentationUrl: `${RATE_DOCS}#about-secondary-rate-limits`,
      },
    );
  }
}
