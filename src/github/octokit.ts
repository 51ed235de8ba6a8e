import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import { ProbotOctokit } from "probot";
import type { Metrics } from "../ops/metrics.js";
import { type AnswerCache, conditionalGets } from "./conditional.js";
import { httpFetch } from "./http-fetch.js";
import type { StopGate } from "./stop-gate.js";

export interface OctokitSettings {
  /** Least time between two mutating calls of one installation: 1000 ms on GitHub, ~0 on the forge. */
  writeIntervalMs: number;
  /**
   * Least time between two calls that notify people (comments, issues, pull requests): GitHub asks
   * for a pause of a few seconds; default three write intervals (3000 ms at GitHub's pace).
   */
  notifyIntervalMs?: number;
  /** How often a call refused by a secondary (or primary) rate limit is retried before it fails. */
  rateLimitRetries: number;
  /**
   * The longest wait (seconds) worth a retry; a longer one (the hour's primary limit spent) fails at
   * once with GitHub's message. Absent: any wait (the app's jobs wait; a person at a terminal should not).
   */
  maxWaitS?: number;
  /** Milliseconds per second of `retry-after` and of the back-off before retrying a 5xx (1000; tests shorten the waits). */
  retryAfterUnitMs?: number;
  metrics?: Metrics;
  /**
   * Several replicas (REDIS_URL): the write and notification pacing kept in Redis (Bottleneck's
   * clustering), so an installation's writes are paced across the fleet, not per process.
   */
  cluster?: { connection: Bottleneck.IORedisConnection; id: string };
  /** Shut at a stop past its grace: every call refused before it is sent (stop-gate.ts). */
  gate?: StopGate;
  /**
   * The app's: each installation's GETs asked again as conditional requests, their answers kept here by
   * installation (a 304 is not counted against the installation's hourly budget, and never hides a
   * change). Absent: every GET is asked in full.
   */
  installationAnswers?: AnswerCache;
}

/**
 * Statuses that asking again cannot change, so @octokit/plugin-retry must not retry them (its default
 * list, plus 405 and 409: "Pull Request is not mergeable" (or another refusal), "Head branch was modified" answer a merge
 * whose pull request changed; retried, each cost three more calls and 14 s before the job could look
 * again and see, say, that someone else had merged it).
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 405, 409, 410, 422, 451];

interface RequestOptionsLike {
  method?: string;
  url?: string;
  request?: { retryCount?: number };
}

/**
 * The one Octokit of porchlight, for the app, the Action and the command line alike — one rate-limit
 * policy (below) and, through the port's adapters, one error mapping (errors.ts).
 *
 * probot's Octokit with porchlight's limits: calls refused by a secondary rate limit (403/429 with
 * retry-after) are retried after the wait, a few times (probot's default only logs them), and hold
 * the installation's other writes for the wait; mutating calls go through one Bottleneck group per
 * app, keyed by installation id, so writes are paced per installation, and calls that notify people
 * through another, paced more slowly. API calls are counted in the metrics.
 */
export function porchlightOctokit(settings: OctokitSettings): typeof ProbotOctokit {
  const shared = (name: string) =>
    settings.cluster ? { connection: settings.cluster.connection, id: `${settings.cluster.id}-${name}` } : {};
  const write = timedWaits(
    new Bottleneck.Group({ maxConcurrent: 1, minTime: settings.writeIntervalMs, ...shared("write") }),
    "write",
    settings.metrics,
  );
  const notifications = timedWaits(
    new Bottleneck.Group({
      maxConcurrent: 1,
      minTime: settings.notifyIntervalMs ?? 3 * settings.writeIntervalMs,
      ...shared("notifications"),
    }),
    "notifications",
    settings.metrics,
  );
  const unitMs = settings.retryAfterUnitMs ?? 1000;
  const retry = (after: number, options: RequestOptionsLike, _octokit: unknown, count?: number): boolean =>
    (count ?? options.request?.retryCount ?? 0) < settings.rateLimitRetries &&
    (settings.maxWaitS === undefined || after <= settings.maxWaitS);
  const WithPlugins = ProbotOctokit.plugin(
    observe(settings.metrics),
    renewExpiredToken,
    refusedOnceStopped(settings.gate),
    conditionalByInstallation(settings.installationAnswers),
  );
  return WithPlugins.defaults((instance: InstanceOptions) => {
    // probot names the installation (`throttle.id`) of the Octokit it makes for one.
    const installation = instance.throttle?.id;
    /**
     * GitHub's secondary limit is the installation's, not the request's: while the refused request
     * waits its `retry-after`, the installation's other writes wait too — in every replica, the
     * write group being clustered with REDIS_URL — instead of each meeting the limit in turn.
     */
    const onSecondaryRateLimit = (
      after: number,
      options: RequestOptionsLike,
      octokit: unknown,
      count?: number,
    ): boolean => {
      const again = retry(after, options, octokit, count);
      if (again && typeof installation === "string" && after > 0)
        void write
          .key(installation)
          .schedule(() => new Promise<void>((resolve) => setTimeout(resolve, after * unitMs)))
          .catch(() => {});
      return again;
    };
    return {
      ...instance,
      retry: { doNotRetry: DO_NOT_RETRY, retryAfterBaseValue: unitMs },
      ...(instance.baseUrl && instance.auth?.request
        ? { auth: tokenRequestsTo(instance.baseUrl, instance.auth) }
        : {}),
      throttle: {
        ...instance.throttle,
        enabled: instance.throttle?.enabled ?? true,
        write,
        notifications,
        retryAfterBaseValue: unitMs,
        onSecondaryRateLimit,
        onRateLimit: retry,
      },
    };
  }) as unknown as typeof ProbotOctokit;
}

/**
 * The group's waits counted in the metrics (porchlight_github_pacing_wait_seconds): the throttling plugin
 * schedules a no-op on the installation's limiter before each write, so the time to its settling is the
 * time the write waited for its installation's pace.
 */
function timedWaits(group: Bottleneck.Group, name: string, metrics: Metrics | undefined): Bottleneck.Group {
  if (!metrics) return group;
  const timed = new WeakSet<Bottleneck>();
  const key = group.key.bind(group);
  group.key = (id = "") => {
    const limiter = key(id);
    if (!timed.has(limiter)) {
      timed.add(limiter);
      const schedule = limiter.schedule.bind(limiter) as (...args: unknown[]) => Promise<unknown>;
      (limiter as { schedule: (...args: unknown[]) => Promise<unknown> }).schedule = (...args) => {
        const end = metrics.pacingWait.startTimer({ group: name });
        return schedule(...args).finally(() => end());
      };
    }
    return limiter;
  };
  return group;
}

/**
 * The pacing shared by several replicas: one Redis connection for Bottleneck's clustering mode
 * (`cluster` for porchlightOctokit); `close()` ends it and the subscriber Bottleneck duplicates from it.
 */
export function clusteredPacing(
  url: string,
  id: string,
  onError: (err: unknown) => void,
): { cluster: NonNullable<OctokitSettings["cluster"]>; close(): Promise<void> } {
  const client = new Redis(url);
  client.on("error", onError);
  const connection = new Bottleneck.IORedisConnection({ client });
  recognisableScriptErrors(connection);
  return { cluster: { connection, id }, close: async () => void (await connection.disconnect(false)) };
}

/** Bottleneck's own script errors, which it recovers from when it recognises them. */
const BOTTLENECK_CODES = /^ERR (SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT)$/;

/**
 * Bottleneck recovers from two errors of its Redis scripts — a limiter whose keys expired after a
 * quiet spell (`SETTINGS_KEY_NOT_FOUND`: it sets them up again) and a client Redis forgot
 * (`UNKNOWN_CLIENT`: it registers again) — by comparing the message to the bare code. Redis 7 prefixes a
 * script's error with `ERR `, so neither was recognised and the call failed: an installation quiet for
 * the group's timeout (5 minutes) failed its next write. The prefix is taken off before Bottleneck
 * looks (through its connection's one script entry point).
 */
function recognisableScriptErrors(connection: Bottleneck.IORedisConnection): void {
  type Callback = (err: unknown, replies?: unknown) => void;
  const c = connection as unknown as { __scriptFn__(name: string): (...args: unknown[]) => unknown };
  const scriptFn = c.__scriptFn__.bind(c);
  c.__scriptFn__ = (name) => {
    const run = scriptFn(name);
    return (...args) => {
      const done = args.at(-1);
      if (typeof done === "function")
        args[args.length - 1] = ((err, replies) => {
          if (err instanceof Error && BOTTLENECK_CODES.test(err.message))
            err.message = err.message.slice("ERR ".length);
          (done as Callback)(err, replies);
        }) satisfies Callback;
      return run(...args);
    };
  };
}

interface RequestLike {
  defaults(options: { baseUrl: string }): RequestLike;
}
interface InstanceOptions {
  baseUrl?: string;
  auth?: { request?: RequestLike };
  throttle?: Record<string, unknown>;
}

/**
 * The app's own authentication requests (`POST /app/installations/{id}/access_tokens` when a token is
 * asked for directly, as git does) go to `baseUrl` too: probot hands the auth strategy a bare request
 * whose base URL is always api.github.com, so GHE_HOST and the forge were ignored there.
 */
function tokenRequestsTo(baseUrl: string, auth: { request?: RequestLike }): { request?: RequestLike } {
  return { ...auth, request: auth.request?.defaults({ baseUrl }) };
}

type Hookable = {
  hook: {
    wrap(
      name: "request",
      fn: (request: (options: unknown) => Promise<unknown>, options: unknown) => Promise<unknown>,
    ): void;
    before(name: "request", fn: (options: RequestOptionsLike) => void): void;
    after(name: "request", fn: (response: ResponseLike, options: RequestOptionsLike) => void): void;
    error(name: "request", fn: (error: ErrorLike, options: RequestOptionsLike) => never): void;
  };
};
interface ResponseLike {
  status: number;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}
interface ErrorLike {
  status?: number;
  response?: { headers?: Record<string, string | number | undefined> };
}

/**
 * An installation's Octokit (probot names its installation in `auth.installationId`, an event's and a
 * job's alike) asks its GETs as conditional
 * requests, with the answers kept for that installation — whichever of its hourly tokens asks; the app's
 * own (JWT) Octokit and a token's pass by.
 */
function conditionalByInstallation(answers: AnswerCache | undefined) {
  return (octokit: unknown, options: object) => {
    const id = (options as { auth?: { installationId?: unknown } }).auth?.installationId;
    if (!answers || (typeof id !== "number" && typeof id !== "string") || id === "") return {};
    return conditionalGets(answers.forToken(`installation ${id}`))(octokit);
  };
}

/** Every request refused before it is sent once the app's stop has abandoned its jobs (stop-gate.ts). */
function refusedOnceStopped(gate: StopGate | undefined) {
  return (octokit: unknown) => {
    if (!gate) return {};
    (octokit as Hookable).hook.before("request", (options) =>
      gate.check(`${options.method ?? "GET"} ${options.url ?? "a request"}`),
    );
    return {};
  };
}

function observe(metrics: Metrics | undefined) {
  return (octokit: unknown) => {
    if (!metrics) return {};
    const o = octokit as Hookable;
    const note = (
      method: string | undefined,
      status: number | undefined,
      headers?: ResponseLike["headers"],
    ) => {
      metrics.apiCalls.inc({ method: method ?? "GET", status: String(status ?? 0) });
      const remaining = Number(headers?.["x-ratelimit-remaining"]);
      if (Number.isFinite(remaining)) metrics.rateLimitRemaining.set({ installation: "any" }, remaining);
    };
    o.hook.wrap("request", async (request, options) => {
      const end = metrics.apiSeconds.startTimer();
      try {
        return await request(options);
      } finally {
        end();
      }
    });
    o.hook.after("request", (response, options) => note(options.method, response.status, response.headers));
    o.hook.error("request", (error, options) => {
      note(options.method, error.status, error.response?.headers);
      throw error;
    });
    return {};
  };
}

/**
 * An installation token lives an hour, and one can expire before the client's cache lets it go (a long
 * job, a clock that differs, a server with shorter tokens): a 401 on a call made with an installation
 * token renews the token once and asks again. Calls made with another kind of credential (the app's JWT,
 * a person's token) fail as they did.
 */
function renewExpiredToken(octokit: unknown) {
  const o = octokit as {
    auth(options?: unknown): Promise<unknown>;
    hook: {
      wrap(
        name: "request",
        fn: (
          request: (options: unknown) => Promise<unknown>,
          options: RequestOptionsLike,
        ) => Promise<unknown>,
      ): void;
    };
  };
  o.hook.wrap("request", async (request, options) => {
    try {
      return await request(options);
    } catch (e) {
      if ((e as ErrorLike).status !== 401 || /\/access_tokens$|^\/app\b/.test(options.url ?? "")) throw e;
      const renewed = await o.auth({ type: "installation", refresh: true }).catch(() => undefined);
      if (!isInstallationToken(renewed)) throw e;
      return request(options);
    }
  });
  return {};
}

/** Whether what Octokit's auth strategy answered (typed `unknown`) is an installation's token. */
function isInstallationToken(auth: unknown): boolean {
  return (
    typeof auth === "object" && auth !== null && "tokenType" in auth && auth.tokenType === "installation"
  );
}

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export interface TokenClientOptions extends OctokitSettings {
  /** REST base URL; default https://api.github.com (GitHub Enterprise: `https://HOST/api/v3`). */
  apiUrl?: string;
  userAgent?: string;
  /** Aborts every request of this client (a command's deadline for one repository). */
  signal?: AbortSignal;
  /**
   * GETs asked again as conditional requests, their answers kept here for this token (a long-running
   * server's, as Porch's API, in memory; the command line's on disk: a 304 is not counted against the
   * token's hourly budget).
   */
  conditional?: AnswerCache | undefined;
}

/**
 * porchlight's Octokit for a token (a person's, or a workflow's): the same class, plugins and limits
 * as the app's, authenticated with `token` (`auth()` answers it, so git gets it the same way).
 */
export function tokenOctokit(token: string, opts: TokenClientOptions): InstanceType<typeof ProbotOctokit> {
  if (opts.apiUrl !== undefined) checkApiUrl(opts.apiUrl);
  const Plain = porchlightOctokit(opts);
  const Client = opts.conditional
    ? (Plain.plugin(conditionalGets(opts.conditional.forToken(token))) as typeof Plain)
    : Plain;
  return new Client({
    auth: { token },
    log: quiet,
    ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
    ...(opts.apiUrl ? { baseUrl: opts.apiUrl.replace(/\/+$/, "") } : {}),
    // Node's own HTTP client, not the global fetch: a command starts some 70 ms sooner (http-fetch.ts)
    request: { fetch: httpFetch, ...(opts.signal ? { signal: opts.signal } : {}) },
  });
}

/**
 * A REST base a person gave (`--api-url`, PORCHLIGHT_API_URL, GITHUB_API_URL): an http(s) URL, or a
 * an error saying how to write one — `127.0.0.1:41833` alone is read by URL as scheme `127.0.0.1:`.
 */
function checkApiUrl(text: string): void {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return;
  const guess = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
    ? "https://HOST/api/v3"
    : `http://${text.replace(/\/+$/, "")}/api/v3`;
  throw new Error(
    `the API URL "${text}" (--api-url, PORCHLIGHT_API_URL or GITHUB_API_URL) is not an http(s) URL: write it whole, scheme included, e.g. ${guess}`,
  );
}
