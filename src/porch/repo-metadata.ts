import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { RepoMetadata, RepoMetadataCache } from "../github/connect.js";
import { READ_ACCESS_TRUST_MS } from "./read-access.js";

const KEPT = 16_384;

/**
 * GitHub's answers to `GET /repos/{owner}/{repo}` (the default branch, the token's permission), per
 * token, each trusted as long as the API trusts a token's read access (READ_ACCESS_TRUST_MS): every
 * opening of a repository reads it, and each push changes its `pushed_at`, so without this each write
 * cost a counted request once more when its answer was read back (a 200, not a 304). A permission taken
 * away shows within the same 10 seconds as a read access taken away; GitHub refuses the write itself
 * meanwhile.
 */
export class RepoMetadataMemo implements RepoMetadataCache {
  readonly #answers: LRUCache<string, { data: RepoMetadata }>;

  constructor(trustMs = READ_ACCESS_TRUST_MS) {
    this.#answers = new LRUCache({ max: KEPT, ttl: trustMs });
  }

  #key(token: string, full: string): string {
    return `${createHash("sha256").update(token).digest("hex")}\n${full.toLowerCase()}`;
  }

  lookup(token: string, full: string): RepoMetadata | undefined {
    return this.#answers.get(this.#key(token, full))?.data;
  }

  keep(token: string, full: string, data: RepoMetadata): void {
    this.#answers.set(this.#key(token, full), { data });
  }
}
