import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { type TokenHolder, tokenHolder } from "../../github/connect.js";
import type { Caller } from "../store.js";
import type { StoreSettings } from "./context.js";

/** How long GitHub's word on a token is kept: accepted, and refused (a revoked token is refused within it). */
const ACCEPTED_MS = 5 * 60_000;
const REFUSED_MS = 60_000;
const TOKENS_KEPT = 4096;

/**
 * Whether GitHub accepts a caller's token, and whose it is, asked once per token and kept a while (by the token's digest),
 * concurrent requests of one token sharing one question: the API answers a token GitHub refuses 401
 * before it reads the request's body or makes anything for it (a folder, a cache entry).
 */
export function tokenCheck(settings: StoreSettings): (caller: Caller) => Promise<TokenHolder> {
  const known = new LRUCache<string, TokenHolder>({ max: TOKENS_KEPT, ttl: ACCEPTED_MS });
  const asking = new Map<string, Promise<TokenHolder>>();
  return async (caller) => {
    const key = createHash("sha256").update(caller.token).digest("hex");
    const kept = known.get(key);
    if (kept !== undefined) return kept;
    let pending = asking.get(key);
    if (!pending) {
      // not the caller's signal: the answer serves every request of the token waiting for it
      pending = tokenHolder({ token: caller.token, apiUrl: settings.apiUrl }).then((holder) => {
        known.set(key, holder, holder.kind === "refused" ? { ttl: REFUSED_MS } : {});
        return holder;
      });
      const asked = pending;
      asking.set(key, asked);
      asked.finally(() => asking.delete(key)).catch(() => {});
    }
    return untilAborted(pending, caller.signal);
  };
}

/** `work`, or a rejection as soon as `signal` aborts (the request ended: its wait ends with it). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const gone = () => reject(signal.reason);
    signal.addEventListener("abort", gone, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", gone));
  });
}
