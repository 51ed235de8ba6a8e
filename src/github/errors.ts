/**
 * GitHub's failures as porchlight reasons about them. Octokit's RequestError becomes a GitHubError here,
 * at the door; nothing past src/github sees Octokit's types.
 */
export type GitHubErrorKind =
  | "not-found"
  | "unauthorized"
  | "forbidden"
  | "validation"
  | "conflict"
  | "not-allowed"
  | "merge-refused"
  | "rate-limited"
  | "server"
  | "network";

export class GitHubError extends Error {
  constructor(
    readonly kind: GitHubErrorKind,
    message: string,
    readonly status?: number,
    /** Seconds GitHub asked us to wait (retry-after, or until x-ratelimit-reset). */
    readonly retryAfter?: number,
    /** When the spent primary budget comes back (x-ratelimit-reset, ms since the epoch on GitHub's clock). */
    readonly resetAt?: number,
  ) {
    super(message);
    this.name = "GitHubError";
  }
}

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

function isRequestErrorLike(e: unknown): e is RequestErrorLike {
  return typeof e === "object" && e !== null && typeof (e as { status?: unknown }).status === "number";
}

/** The HTTP status an Octokit call's error carries, if any (checked in a call, before mapGitHubErrors). */
export function statusOf(e: unknown): number | undefined {
  return isRequestErrorLike(e) ? e.status : undefined;
}

/** Runs one GitHub call; what it throws comes out as a GitHubError naming `what` (see toGitHubError). */
export async function mapGitHubErrors<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toGitHubError(e, what);
  }
}

/** Turns whatever an Octokit call threw into a GitHubError (other errors pass through unchanged). */
export function toGitHubError(e: unknown, what: string): unknown {
  if (e instanceof GitHubError) return e;
  if (!isRequestErrorLike(e)) {
    const code = (e as { code?: unknown })?.code;
    if (typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR)/.test(code)) {
      return new GitHubError("network", `${what}: ${(e as Error).message}`);
    }
    return e;
  }
  // Octokit reports a request that got no HTTP answer at all as status 500 with no response
  if (e.status === 500 && !e.response) return noAnswer(e, what);
  const headers = e.response?.headers ?? {};
  const detail = errorDetail(e.response?.data, e.message);
  const message = `${what}: ${detail} (HTTP ${e.status})`;
  const retryAfter = Number(headers["retry-after"]);
  const remaining = headers["x-ratelimit-remaining"];
  switch (e.status) {
    case 401:
      return new GitHubError("unauthorized", message, 401);
    case 403:
    case 429:
      if (Number.isFinite(retryAfter) || String(remaining) === "0" || /rate limit/i.test(detail)) {
        return new GitHubError(
          "rate-limited",
          message,
          e.status,
          rateLimitWait(headers, retryAfter),
          budgetReset(headers, retryAfter),
        );
      }
      return new GitHubError("forbidden", message, e.status);
    case 404:
      return new GitHubError("not-found", message, 404);
    case 405:
      // GitHub's "Method Not Allowed": the action is refused on this resource as it is now (a merge)
      return new NotAllowed(message, detail);
    case 409:
      return new GitHubError("conflict", message, 409);
    case 422:
      return new GitHubError("validation", message, 422);
    default:
      return new GitHubError(e.status >= 500 ? "server" : "validation", message, e.status);
  }
}

/**
 * Why GitHub refused to open a pull request (a 422), told apart by its message, which each keeps: one is
 * open from that branch already, or the branch has no commit the base lacks; undefined for any other.
 */
export function pullRefusalOf(e: unknown): "exists" | "no-commits" | undefined {
  if (!(e instanceof GitHubError) || e.kind !== "validation") return undefined;
  if (/already exists/i.test(e.message)) return "exists";
  if (/no commits between/i.test(e.message)) return "no-commits";
  return undefined;
}

/** A 405 from GitHub, with GitHub's own message (`detail`) kept apart from where it was asked. */
class NotAllowed extends GitHubError {
  constructor(
    message: string,
    /** GitHub's message alone: "Pull Request is not mergeable", "Merge commits are not allowed on this repository.", … */
    readonly detail: string,
  ) {
    super("not-allowed", message, 405);
  }
}

/**
 * Why GitHub refused a merge (a 405 from `PUT /pulls/{n}/merge`), one case each, told apart by GitHub's
 * message, which each keeps: the pull request cannot be merged as it is (conflicts, or it is closed or
 * merged already), the base branch moved during the merge, the repository does not allow this merge
 * method, the pull request is a draft, a rebase merge cannot replay its commits, or the base branch's
 * protection or rules ask for something first (reviews, checks; GitHub's message says which).
 */
export type MergeRefusal = { github: string } & (
  | { kind: "not-mergeable" }
  | { kind: "base-moved" }
  | { kind: "method-not-allowed" }
  | { kind: "draft" }
  | { kind: "not-rebaseable" }
  | { kind: "protected" }
);

/** A merge GitHub refused: `refusal` says why, in GitHub's words too. */
export class MergeRefused extends GitHubError {
  constructor(
    message: string,
    readonly refusal: MergeRefusal,
  ) {
    super("merge-refused", message, 405);
    this.name = "MergeRefused";
  }
}

/** A merge's failure as the door reports it: a 405 becomes a MergeRefused naming its case; others pass. */
export function asMergeRefused(e: unknown): unknown {
  if (!(e instanceof NotAllowed)) return e;
  const github = e.detail;
  const kind: MergeRefusal["kind"] = /not mergeable/i.test(github)
    ? "not-mergeable"
    : /base branch was modified/i.test(github)
      ? "base-moved"
      : /(merge commits|squash merges|rebase merges) are not allowed/i.test(github)
        ? "method-not-allowed"
        : /draft/i.test(github)
          ? "draft"
          : /can(no|')t be rebased/i.test(github)
            ? "not-rebaseable"
            : "protected";
  return new MergeRefused(e.message, { kind, github });
}

/**
 * What GitHub's error body says: its `message` (else `fallback`, Octokit's own), then the message of
 * each of its `errors`. A body of another shape (a proxy's page, a list) says nothing.
 */
function errorDetail(data: unknown, fallback: string): string {
  if (typeof data !== "object" || data === null) return fallback;
  const message = "message" in data && typeof data.message === "string" ? data.message : fallback;
  const errors = "errors" in data && Array.isArray(data.errors) ? data.errors : [];
  const details = errors.flatMap((x: unknown) =>
    typeof x === "object" && x !== null && "message" in x && typeof x.message === "string" && x.message !== ""
      ? [x.message]
      : [],
  );
  return [message, ...details].join(": ");
}

/**
 * A request no server answered, said as what to check: nothing listening, a name that does not
 * resolve, a server that does not speak TLS (an `https://` URL for a plain HTTP server) or whose
 * certificate is not trusted — never OpenSSL's own text alone, nor an HTTP status no server sent.
 */
function noAnswer(e: RequestErrorLike, what: string): GitHubError {
  const url = (e as { request?: { url?: unknown } }).request?.url;
  const where = typeof url === "string" ? new URL(url).origin : "the server";
  const text = e.message;
  const because = (() => {
    if (/ECONNREFUSED/.test(text))
      return `nothing answers at ${where} (connection refused): is the server running, and is its URL (--api-url, GHE_HOST) right?`;
    if (/ENOTFOUND|EAI_AGAIN/.test(text)) return `the host of ${where} cannot be resolved: check the URL`;
    if (/wrong version number|SSL routines|EPROTO|packet length too long/i.test(text))
      return `${where} does not answer HTTPS (the TLS handshake failed): if the server speaks plain HTTP, write http:// instead`;
    if (/certificate|self[- ]signed|UNABLE_TO_VERIFY/i.test(text))
      return `${where}'s TLS certificate is not trusted (${text.trim()}): give its CA to Node with NODE_EXTRA_CA_CERTS=FILE`;
    if (/ETIMEDOUT|timeout/i.test(text)) return `${where} did not answer in time`;
    return `no answer from ${where}: ${text.trim()}`;
  })();
  return new GitHubError("network", `${what}: ${because}`);
}

function rateLimitWait(headers: Record<string, string | number | undefined>, retryAfter: number): number {
  if (Number.isFinite(retryAfter)) return retryAfter;
  const reset = Number(headers["x-ratelimit-reset"]);
  if (Number.isFinite(reset)) return Math.max(1, Math.ceil(reset - Date.now() / 1000));
  return 60;
}

/** x-ratelimit-reset in ms, when the primary budget is what is spent (no retry-after). */
function budgetReset(
  headers: Record<string, string | number | undefined>,
  retryAfter: number,
): number | undefined {
  const reset = Number(headers["x-ratelimit-reset"]);
  return !Number.isFinite(retryAfter) &&
    String(headers["x-ratelimit-remaining"]) === "0" &&
    Number.isFinite(reset)
    ? reset * 1000
    : undefined;
}
