/** A successful GET as Octokit answered it, kept with the ETag GitHub gave it. */
export interface Kept {
  etag: string;
  url: string;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}

/** One token's view of the cache. */
export interface TokenAnswers {
  /**
   * Names the token (a digest of it, never the token): the same for every view of the same token, so
   * that its clients' same GETs made at once are asked together (conditionalGets).
   */
  readonly who: string;
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
  request?: { parseSuccessResponseBody?: boolean; signal?: AbortSignal };
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
 * One GET of a token's URL as it is asked together: `waiting` while it waits for the same GET already
 * asked to be answered (its ETag is the one to ask with), then sent; those who asked meanwhile share it.
 */
interface Flight {
  answer: Promise<Response>;
  /** How many asked it (the one who started it and those who joined before it was sent). */
  askers: number;
  /** The signal of the request that is sent: aborted, its askers ask again each on their own. */
  signal: AbortSignal | undefined;
}

/**
 * The same GETs a token's clients ask at once (several registrations of one repository read together,
 * each listing its open pull requests), asked once each moment, across every client of the process. A GET
 * made while the same one waits to be sent joins it: its answer comes after the GET was made, so it is as
 * current as a request of its own. A GET made while the same one is in the air waits for its answer, then
 * asks with the ETag it brought: a change made meanwhile is answered in full, and else GitHub answers 304
 * (not counted against the token's budget), where two requests at once would each have been answered in
 * full. By `who accept url`: at most two flights a key, the one in the air and the one waiting.
 */
const flights = new Map<string, { inAir?: Flight; waiting?: Flight }>();

/**
 * An Octokit plugin: each GET asks with the ETag of the answer kept for its URL and media type, and a 304
 * is answered with the kept answer (a copy); a 200 is kept in its place. The same GETs made at once are
 * asked together (`flights`). Other methods, answers read as streams and requests conditional already
 * pass by.
 */
export function conditionalGets(answers: TokenAnswers) {
  return (octokit: unknown) => {
    const o = octokit as Hooked;
    /** One request as conditional: asked with the kept answer's ETag, a 304 answered with the kept answer. */
    const ask = async (
      request: (options: RequestOptions) => Promise<Response>,
      options: RequestOptions,
      url: string,
      accept: string,
      sending: () => void,
    ): Promise<Response> => {
      const kept = await answers.lookup(url, accept);
      // the hooks inside this one were handed these very options: the header is set on them
      if (kept) options.headers = { ...options.headers, "if-none-match": kept.etag };
      sending();
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
    };
    const together = async (
      request: (options: RequestOptions) => Promise<Response>,
      options: RequestOptions,
    ): Promise<Response> => {
      const { url, headers } = o.request.endpoint.parse(options);
      const accept = headers.accept ?? "";
      const key = `${answers.who} ${accept} ${url}`;
      const slot = flights.get(key) ?? {};
      flights.set(key, slot);
      let flight = slot.waiting;
      if (flight) flight.askers += 1;
      else {
        const before = slot.inAir?.answer;
        const mine: Flight = {
          askers: 1,
          signal: options.request?.signal,
          answer: (async () => {
            await before?.catch(() => undefined);
            return ask(request, options, url, accept, () => {
              if (slot.waiting === mine) slot.waiting = undefined;
              slot.inAir = mine;
            });
          })(),
        };
        flight = mine;
        slot.waiting = mine;
        const done = () => {
          if (slot.waiting === mine) slot.waiting = undefined;
          if (slot.inAir === mine) slot.inAir = undefined;
          if (!slot.waiting && !slot.inAir && flights.get(key) === slot) flights.delete(key);
        };
        mine.answer.then(done, done);
      }
      const joined = flight;
      try {
        const res = await joined.answer;
        // each asker its own copy but the last, who takes the answer itself
        joined.askers -= 1;
        return joined.askers === 0
          ? res
          : { ...res, headers: { ...res.headers }, data: structuredClone(res.data) };
      } catch (e) {
        joined.askers -= 1;
        // the request sent was given up by the one who sent it: the others ask for themselves
        if (joined.signal?.aborted && !options.request?.signal?.aborted) return together(request, options);
        throw e;
      }
    };
    o.hook.wrap("request", async (request, options) => {
      if (
        (options.method ?? "GET").toUpperCase() !== "GET" ||
        options.request?.parseSuccessResponseBody === false ||
        options.headers?.["if-none-match"] !== undefined
      )
        return request(options);
      return together(request, options);
    });
    return {};
  };
}

function rateHeaders(headers: Response["headers"]): Response["headers"] {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.startsWith("x-ratelimit-")));
}
