import { type ApiBounds, DEFAULT_API_BOUNDS } from "../porchapi/bounds.js";
import { DEFAULT_CACHED_CALLERS } from "../porchapi/registry/caller-folders.js";
import { UsageError } from "./io.js";

/** A whole number from the environment, or `fallback` when unset; `min` at least. */
function wholeEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min)
    throw new UsageError(
      `${name} must be a whole number${min > 0 ? ` of at least ${min}` : ""}, not "${text}"`,
    );
  return Number(text);
}

/**
 * The bounds of Porch's API (porchapi/bounds.ts) from PORCHLIGHT_API_* settings, each defaulting to
 * DEFAULT_API_BOUNDS; docs/porch-api.md lists them. And how many callers' cache folders are kept.
 */
export function apiBoundsFromEnv(env: NodeJS.ProcessEnv): ApiBounds & { cachedCallers: number } {
  const d = DEFAULT_API_BOUNDS;
  const maxBodyBytes = wholeEnv(env, "PORCHLIGHT_API_MAX_BODY_BYTES", d.maxBodyBytes, 1);
  return {
    watchPollMs: wholeEnv(env, "PORCHLIGHT_API_WATCH_POLL_MS", d.watchPollMs),
    watchBookmarkMs: wholeEnv(env, "PORCHLIGHT_API_WATCH_BOOKMARK_MS", d.watchBookmarkMs, 1),
    maxWatches: wholeEnv(env, "PORCHLIGHT_API_MAX_WATCHES", d.maxWatches),
    maxWatchesPerToken: wholeEnv(env, "PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN", d.maxWatchesPerToken),
    maxBodyBytes,
    maxPendingBodyBytes: wholeEnv(env, "PORCHLIGHT_API_MAX_PENDING_BYTES", 4 * maxBodyBytes, maxBodyBytes),
    bodyPace: {
      idleMs: wholeEnv(env, "PORCHLIGHT_API_BODY_IDLE_MS", d.bodyPace.idleMs, 1),
      graceMs: wholeEnv(env, "PORCHLIGHT_API_BODY_MS", d.bodyPace.graceMs, 1),
      minBytesPerSecond: d.bodyPace.minBytesPerSecond,
    },
    stopMs: wholeEnv(env, "PORCHLIGHT_API_STOP_MS", d.stopMs),
    cachedCallers: wholeEnv(env, "PORCHLIGHT_API_CACHED_CALLERS", DEFAULT_CACHED_CALLERS, 1),
  };
}
