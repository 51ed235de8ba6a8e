import type { Principal } from "./auth.js";
import { TOKEN_TTL_MS } from "./auth.js";
import type { GitStore } from "./git.js";
import type { Reply } from "./http.js";
import type { RateLimiter } from "./ratelimit.js";
import type { Store } from "./state.js";
import type { Webhooks } from "./webhooks.js";

/** Where the forge is reachable; set once the server listens. */
export interface Urls {
  /** Web and git base, e.g. `http://127.0.0.1:3000`. */
  web: string;
  /** REST base as written into payload `url` fields (`<web>/api/v3`). */
  api: string;
}

/** What every handler and payload builder shares: one per running forge, passed explicitly. */
export class ForgeCore {
  private readonly locks = new Map<number, Promise<unknown>>();
  /** Internal failures (a handler crash, a failed post-push step); tests assert there are none. */
  readonly errors: Error[] = [];
  /** How long an installation token lives (GitHub: an hour); tests shorten it to prove long runs. */
  tokenTtlMs = TOKEN_TTL_MS;

  constructor(
    readonly store: Store,
    readonly git: GitStore,
    readonly webhooks: Webhooks,
    readonly urls: Urls,
    readonly rateLimit: RateLimiter,
  ) {}

  report(err: unknown): void {
    this.errors.push(err instanceof Error ? err : new Error(String(err)));
  }

  /** Runs `fn` with the repository's ref lock held, so ref diffs around a push stay exact. */
  withRepoLock<T>(repoId: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(repoId) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(repoId, tail);
    void tail.then(() => {
      if (this.locks.get(repoId) === tail) this.locks.delete(repoId);
    });
    return run;
  }
}

/** The bucket a principal's requests count against, and how GitHub names it in messages. */
export function rateKey(p: Principal): { key: string; who: string } {
  switch (p.kind) {
    case "installation":
      return { key: `installation:${p.installation.id}`, who: `installation ID ${p.installation.id}` };
    case "user":
      return { key: `user:${p.user.id}`, who: `user ID ${p.user.id}` };
    case "app":
      return { key: `app:${p.app.id}`, who: `app ID ${p.app.id}` };
    default:
      return { key: "anonymous", who: "127.0.0.1" };
  }
}

export interface Ctx {
  core: ForgeCore;
  method: string;
  template: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The request's `Accept` header ("" when absent): custom media types choose a response format. */
  accept: string;
  principal: Principal;
  /** The full request URL (for Link headers). */
  url: URL;
}

export type Handler = (ctx: Ctx) => Promise<Reply> | Reply;
