import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { AnswerCache } from "../github/conditional.js";
import { connectRepo, type RepoMetadataCache } from "../github/connect.js";
import { GitHubError } from "../github/errors.js";

/**
 * How long GitHub's answer to "may this token read this repository?" is trusted: a repository made
 * private, or a collaborator removed, disappears from that token's reads within it (docs/porch-api.md).
 */
export const READ_ACCESS_TRUST_MS = 10_000;
const ANSWERS_KEPT = 16_384;

/** Who asks, and the signal that ends their requests to GitHub. */
export interface Reader {
  token: string;
  signal?: AbortSignal | undefined;
}

/**
 * Whether a token reads a repository, as GitHub says it to that token (`GET /repos/{owner}/{repo}`,
 * asked as a conditional request: a 304 costs the caller no budget), never with the app's credentials.
 * Each answer is trusted READ_ACCESS_TRUST_MS; concurrent questions of one token about one repository
 * share one request.
 */
export class ReadAccess {
  readonly #answers: LRUCache<string, boolean>;
  readonly #asking = new Map<string, Promise<boolean>>();

  constructor(
    readonly settings: {
      apiUrl: string | undefined;
      conditional?: AnswerCache | undefined;
      cacheDir: string;
      /** Where the answers are kept for the openings that follow (repo-metadata.ts). */
      metadata?: RepoMetadataCache | undefined;
    },
    readonly trustMs = READ_ACCESS_TRUST_MS,
  ) {
    this.#answers = new LRUCache({ max: ANSWERS_KEPT, ttl: trustMs });
  }

  async canRead(reader: Reader, full: string): Promise<boolean> {
    const key = `${createHash("sha256").update(reader.token).digest("hex")}\n${full.toLowerCase()}`;
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    let asked = this.#asking.get(key);
    if (!asked) {
      asked = this.#ask(reader, full).then((ok) => {
        this.#answers.set(key, ok);
        return ok;
      });
      this.#asking.set(key, asked);
      const done = asked;
      done.finally(() => this.#asking.delete(key)).catch(() => {});
    }
    try {
      return await asked;
    } catch (e) {
      // the question another asked failed with their request (it ended): this one asks for itself
      if (reader.signal?.aborted) throw e;
      const ok = await this.#ask(reader, full);
      this.#answers.set(key, ok);
      return ok;
    }
  }

  async #ask({ token, signal }: Reader, full: string): Promise<boolean> {
    const [owner = "", repo = ""] = full.split("/");
    try {
      await connectRepo({
        token,
        apiUrl: this.settings.apiUrl,
        repo: { owner, repo },
        cacheDir: this.settings.cacheDir,
        conditional: this.settings.conditional,
        // its answer kept for the openings that follow, never taken from there: a token's access is
        // asked of GitHub at least every trustMs
        metadata: this.settings.metadata && {
          lookup: () => undefined,
          keep: (token, full, data) => this.settings.metadata?.keep(token, full, data),
        },
        rateLimitRetries: 0,
        signal,
      });
      return true;
    } catch (e) {
      // GitHub shows a repository to those who may read it: 404 (or 403) is no access
      if (e instanceof GitHubError && (e.kind === "not-found" || e.kind === "forbidden")) return false;
      throw e;
    }
  }
}
