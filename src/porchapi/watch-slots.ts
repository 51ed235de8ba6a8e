import { createHash } from "node:crypto";
import { ApiError } from "./status.js";

/**
 * The watches open at once, on the server and per token. Each watch reads its namespace's state again
 * every poll, as its caller, from GitHub: unbounded, a few clients could spend a token's hourly budget
 * and the forge's capacity, and starve every other request. Past a bound the watch is refused with 429
 * and a Status naming the bound and its setting; a client (an informer) retries after a while.
 */
export class WatchSlots {
  #open = 0;
  /** Open watches by the token's digest (the token itself is never kept as a key). */
  readonly #byToken = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly perToken: number,
  ) {}

  /** Takes a slot for a watch of `token`, or throws 429; the returned function gives it back (once). */
  take(token: string): () => void {
    const who = createHash("sha256").update(token).digest("hex");
    const mine = this.#byToken.get(who) ?? 0;
    if (mine >= this.perToken)
      throw new ApiError(
        "TooManyRequests",
        `this token has ${mine} watches open, the most one token may (PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN=${this.perToken}); close one, or watch again later`,
        { retryAfterSeconds: 5 },
      );
    if (this.#open >= this.max)
      throw new ApiError(
        "TooManyRequests",
        `the server has ${this.#open} watches open, the most it serves (PORCHLIGHT_API_MAX_WATCHES=${this.max}); watch again later`,
        { retryAfterSeconds: 5 },
      );
    this.#open++;
    this.#byToken.set(who, mine + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#open--;
      const left = (this.#byToken.get(who) ?? 1) - 1;
      if (left > 0) this.#byToken.set(who, left);
      else this.#byToken.delete(who);
    };
  }
}
