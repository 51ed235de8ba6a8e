import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { AnswerCache, Kept, TokenAnswers } from "./conditional.js";

/** How many bytes the answers kept take at most, across every token (default 64 MiB). */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * GitHub's answers to GETs, kept per token with their ETags so that asking again is a conditional request
 * (`If-None-Match`): GitHub answers 304 Not Modified while nothing changed — not counted against the
 * token's hourly budget — and the kept answer is served; any change is answered in full, so a kept
 * answer never hides a change (nothing is kept by time). Bounded (least recently used go first), and
 * keyed by a digest of the token: one caller's answers never serve another.
 */
export class ConditionalCache implements AnswerCache {
  private readonly kept: LRUCache<string, Kept>;

  constructor(opts: { maxBytes?: number } = {}) {
    this.kept = new LRUCache<string, Kept>({
      maxSize: opts.maxBytes ?? DEFAULT_MAX_BYTES,
      sizeCalculation: (k, key) => key.length + sizeOf(k.data) + 256,
    });
  }

  /** The cache as one token's: what its Octokit looks up and keeps. */
  forToken(token: string): TokenAnswers {
    const prefix = createHash("sha256").update(token).digest("hex").slice(0, 24);
    const key = (url: string, accept: string) => `${prefix} ${accept} ${url}`;
    return {
      who: prefix,
      lookup: (url, accept) => this.kept.get(key(url, accept)),
      keep: (url, accept, answer) => {
        if (answer.etag === undefined) return;
        // the caller may change the answer it was given: the cache keeps a copy of its own
        this.kept.set(key(url, accept), { ...answer, etag: answer.etag, data: structuredClone(answer.data) });
      },
    };
  }
}

/** Roughly how many bytes an answer takes: raw bytes as they are, text and JSON by its length. */
function sizeOf(data: unknown): number {
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (typeof data === "string") return data.length * 2;
  if (data === undefined || data === null) return 0;
  return JSON.stringify(data).length * 2;
}
