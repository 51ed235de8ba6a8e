import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { AnswerCache, Kept, TokenAnswers } from "./conditional.js";

/** How long an answer stays in Redis after it was last kept (an hour: GitHub's budget's period). */
const SHARED_TTL_S = 3600;
/** Larger answers stay with the replica that read them (a list of thousands of pull requests). */
const SHARED_MAX_BYTES = 1024 * 1024;

/**
 * GitHub's answers kept for a fleet of replicas (Redis mode): each replica keeps them in memory (`local`)
 * and in Redis under a digest of the token and the URL, so that a replica asking what another already
 * read asks with that one's ETag, and GitHub answers 304 — not counted against the token's budget —
 * where it would have answered each replica in full. An answer is still only served after GitHub said it
 * is current (conditionalGets), so what Redis holds never hides a change, and one token's answers never
 * serve another. Redis unreachable: the replica's own answers, as in one process.
 */
export class SharedAnswers implements AnswerCache {
  constructor(
    private readonly local: AnswerCache,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  forToken(token: string): TokenAnswers {
    const mine = this.local.forToken(token);
    const who = createHash("sha256").update(token).digest("hex").slice(0, 32);
    const keyOf = (url: string, accept: string) =>
      `${this.prefix}:api:answers:${who}:${createHash("sha1").update(`${accept}\n${url}`).digest("hex")}`;
    return {
      who: mine.who,
      lookup: async (url, accept) => {
        const held = await mine.lookup(url, accept);
        const key = keyOf(url, accept);
        try {
          const etag = await this.redis.hget(key, "etag");
          if (etag === null || etag === held?.etag) return held;
          const text = await this.redis.hget(key, "answer");
          if (text === null) return held;
          const kept = JSON.parse(text) as Kept;
          if (kept.etag !== etag) return held;
          mine.keep(url, accept, kept);
          return kept;
        } catch (e) {
          this.onError(e);
          return held;
        }
      },
      keep: (url, accept, answer) => {
        mine.keep(url, accept, answer);
        if (answer.etag === undefined || !isJson(answer.data)) return;
        const text = JSON.stringify({ ...answer, etag: answer.etag });
        if (text.length > SHARED_MAX_BYTES) return;
        const key = keyOf(url, accept);
        this.redis
          .multi()
          .hset(key, "etag", answer.etag, "answer", text)
          .expire(key, SHARED_TTL_S)
          .exec()
          .catch(this.onError);
      },
    };
  }
}

/** Whether an answer's data survives JSON as it is (not bytes, as a raw blob's). */
function isJson(data: unknown): boolean {
  return !(data instanceof ArrayBuffer || ArrayBuffer.isView(data));
}
