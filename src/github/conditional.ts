/** A successful GET as Octokit answered it, kept with the ETag GitHub gave it. */
export interface Kept {
  etag: string;
  url: string;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}

/** One token's view of the cache. */
export interface TokenAnswers {
  /** The answer kept for the URL (a fleet's, from Redis: asked, so it may be a promise). */
  lookup(url: string, accept: string): Kept | undefined | Promise<Kept | undefined>;
  keep(url: string, accept: string, answer: Omit<Kept, "etag"> & { etag: string | undefined }): void;
}

/**
 * Where a client's answers are kept, per token: in memory for a server's life (conditional-cache.ts), or
 * on disk across a person's commands (cli/disk-cache.ts). Either way a kept answer is only ever served
 * after GitHub answered 304 to its ETag: it never hides a change.
 */
export interface AnswerCache {
  forToken(token: string): TokenAnswers;
}

interface RequestOptions {
  method?: string;
  headers?: Record<string, string | undefined>;
  request?: { parseSuccessResponseBody?: boolean };
}
interface Response {
  status: number;
  url: string;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}
interface Endpoint {
  parse(options: unknown): { method: string; url: string; headers: Record<string, string | undefined> };
}
type Hooked = {
  request: { endpoint: Endpoint };
  hook: {
    wrap(
      name: "request",
      fn: (
        request: (options: RequestOptions) => Promise<Response>,
        options: RequestOptions,
      ) => Promise<Response>,
    ): void;
  };
};

/**
 * An Octokit plugin: each GET asks with the ETag of the answer kept for its URL and media type, and a 304
 * is answered with the kept answer (a copy); a 200 is kept in its place. Other methods, answers read as
 * streams and requests conditional already pass by.
 */
export function conditionalGets(answers: TokenAnswers) {
  return (octokit: unknown) => {
    const o = octokit as Hooked;
    o.hook.wrap("request", async (request, options) => {
      if (
        (options.method ?? "GET").toUpperCase() !== "GET" ||
        options.request?.parseSuccessResponseBody === false ||
        options.headers?.["if-none-match"] !== undefined
      )
        return request(options);
      const { url, headers } = o.request.endpoint.parse(options);
      const accept = headers.accept ?? "";
      const kept = await answers.lookup(url, accept);
      // the hooks inside this one were handed these very options: the header is set on them
      if (kept) options.headers = { ...options.headers, "if-none-match": kept.etag };
      try {
        const res = await request(options);
        const etag = res.headers.etag;
        answers.keep(url, accept, {
          url: res.url,
          headers: res.headers,
          data: res.data,
          etag: typeof etag === "string" ? etag : undefined,
        });
        return res;
      } catch (e) {
        if (!kept || (e as { status?: number }).status !== 304) throw e;
        const fresh = (e as { response?: { headers?: Response["headers"] } }).response?.headers ?? {};
        // the kept answer, with this answer's rate-limit headers (what the budget is now)
        return {
          status: 200,
          url: kept.url,
          headers: { ...kept.headers, ...rateHeaders(fresh) },
          data: structuredClone(kept.data),
        };
      }
    });
    return {};
  };
}

function rateHeaders(headers: Response["headers"]): Response["headers"] {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.startsWith("x-ratelimit-")));
}
