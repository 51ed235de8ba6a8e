import type { BodyPace } from "../ops/body.js";

/**
 * What one server of Porch's API takes at most. Every request acts on GitHub with its caller's token, so
 * what a request costs the forge (and the caller's hourly budget) and the server's memory is bounded
 * here, and the operator raises a bound by its setting (cli/api-bounds.ts, docs/porch-api.md).
 */
export interface ApiBounds {
  /**
   * How often a watch reads the state again to report changes (also those made by git pushes); a watch
   * of a resource whose store tells it of changes (the index of package revisions) is woken by them and
   * reads the state as the server knows it this often, its caller's access checked again.
   */
  watchPollMs: number;
  /** How often a watch that asked for bookmarks (`allowWatchBookmarks`) is sent one, as the API server's. */
  watchBookmarkMs: number;
  /** Watches open at once on the server; past it, 429 TooManyRequests. */
  maxWatches: number;
  /** Watches open at once with one token; past it, 429 TooManyRequests. */
  maxWatchesPerToken: number;
  /** The largest request body taken; past it, 413. */
  maxBodyBytes: number;
  /** The bytes all request bodies being read or served may hold together; past it, 429. */
  maxPendingBodyBytes: number;
  /** How fast a body must arrive: a client that pauses or trickles is cut off with 408. */
  bodyPace: BodyPace;
  /** How long a stop waits for the requests it cancelled to end before it lets them go. */
  stopMs: number;
}

const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export const DEFAULT_API_BOUNDS: ApiBounds = {
  watchPollMs: 5000,
  // the API server sends a bookmark about once a minute
  watchBookmarkMs: 60_000,
  // a controller watches each kind it reconciles (six here) and kubectl get -w one
  maxWatchesPerToken: 12,
  maxWatches: 100,
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  maxPendingBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES,
  // kubectl sends a body whole as it starts the request; 256 KiB/s lets 8 MiB come over a slow link
  bodyPace: { idleMs: 10_000, graceMs: 10_000, minBytesPerSecond: 256 * 1024 },
  stopMs: 3000,
};
