import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { setFlagsFromString } from "node:v8";
import type { Forge } from "@porchlight/forge";
import {
  type AppServer,
  DEFAULT_MAX_WAIT_S,
  DEFAULT_STOP_GRACE_MS,
  type RedisSettings,
  startAppServer,
} from "../app/server.js";
import {
  DEFAULT_WEBHOOK_MAX_BYTES,
  PENDING_BODIES,
  WEBHOOK_MAX_BYTES_ENV,
  WEBHOOK_MAX_PENDING_BYTES_ENV,
} from "../app/webhook/edge.js";
import {
  DEFAULT_LIMITS,
  LIMIT_ENV,
  LimitSettingError,
  type Limits,
  limitUnit,
  operatorLimitsFromEnv,
} from "../config/limits.js";
import { operatorRuntimesFromEnv } from "../config/runtimes.js";
import type { AnswerCache } from "../github/conditional.js";
import { SharedAnswers } from "../github/shared-answers.js";
import { DEFAULT_PACKAGE_WORK, type PackageWorkSettings } from "../jobs/bounded/bounded.js";
import { createLogger } from "../ops/logger.js";
import { RedisNotices } from "../queue/redis-notices.js";
import { egressPolicyFromEnv } from "../sources/egress.js";
import { SourceError } from "../sources/errors.js";
import { logUnreachable } from "./api.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { parseCommandArgs } from "./options.js";
import { checkPrivateKey, checkServeEnv } from "./serve-env.js";
import { nextSteps, startServeForge } from "./serve-forge.js";
import { registerSeeded, servePorchApiOnForge, servePorchApiOnGitHub } from "./serve-porch-api.js";
import { waitForSignal } from "./signals.js";

/** The limits' variables with their defaults, from the one table the app reads them with. */
const LIMIT_LINES = (Object.keys(LIMIT_ENV) as (keyof typeof LIMIT_ENV)[])
  .map((name) => `  ${LIMIT_ENV[name].padEnd(36)} default ${DEFAULT_LIMITS[name]} ${limitUnit(name)}`)
  .join("\n");

const USAGE = `Usage: porchlight serve [--data DIR] [--demo]
  Run the GitHub App (port PORT, default 3000; /healthz, /metrics).
  With APP_ID, PRIVATE_KEY (or PRIVATE_KEY_PATH) and WEBHOOK_SECRET it serves GitHub (GHE_HOST for
  GitHub Enterprise); with none of them, an embedded forge seeded with examples, the app installed on
  it. Some of them set and others not is refused, naming what is missing.
  Every repository is swept once at start-up, then every PORCHLIGHT_RECONCILE_INTERVAL_MS (default
  900000, 15 minutes, on GitHub; 60000 on the embedded forge; 0 turns the periodic sweep off).
  With REDIS_URL (serving GitHub), this process is one of several replicas sharing the work through
  Redis: docs/scaling.md.

Options:
  --demo       Serve the embedded forge even where app credentials are set (they are ignored).
  --data DIR   Where the embedded forge keeps its state (repositories, users, tokens, the app and its
               key, installation, pull requests, checks, webhook settings) and the port it listens on,
               so a stop and a start carry on where it was. Also PORCHLIGHT_DATA. Without it: a
               temporary folder, deleted on stop.
  -h, --help   This text.

Environment (GitHub App):
  APP_ID, WEBHOOK_SECRET               the GitHub App's id and webhook secret
  PRIVATE_KEY or PRIVATE_KEY_PATH      its private key (PEM text, or a file holding it)
  GHE_HOST, GHE_PROTOCOL               GitHub Enterprise host (API at GHE_PROTOCOL://GHE_HOST/api/v3;
                                       protocol default https); unset: github.com
  HOST                                 address to listen on (default 0.0.0.0)
  PORCHLIGHT_WRITE_INTERVAL_MS         pause between mutating GitHub calls per installation (default 1000)
  REDIS_URL                            redis://…: one of several replicas sharing the work (docs/scaling.md)
  PORCHLIGHT_REDIS_PREFIX              prefix of the fleet's Redis keys (default porchlight)
  PORCHLIGHT_REPLICA                   this replica's name in logs and metrics (default: host name and pid)
  PORCHLIGHT_REDIS_LOCK_MS             how long a silent replica keeps its jobs before another works them
                                       (default 30000)
  PORCHLIGHT_API_PORT                  serve Porch's API on this port too (0: any free port; unset: not
                                       served); callers bring their GitHub token; with REDIS_URL every
                                       replica's API answers as one (docs/scaling.md)
  PORCHLIGHT_API_HOST                  its address (default HOST, else 0.0.0.0)
  PORCHLIGHT_API_TLS_CERT, _TLS_KEY    its certificate and key (PEM files; the same on every replica);
                                       unset: one made at each start, printed; PORCHLIGHT_API_HTTP=any
                                       serves plain HTTP behind a balancer that ends TLS
Environment (both modes):
  PORT                                 the app's port (default 3000)
  PORCHLIGHT_CONCURRENCY               jobs this process runs at once, of different repositories (default 4;
                                       a job mostly waits for GitHub, so more than the cores is fine)
  PORCHLIGHT_RECONCILE_INTERVAL_MS     sweep interval (default 900000 on GitHub, 60000 on the forge; 0: off)
  PORCHLIGHT_STOP_GRACE_MS             at SIGTERM or SIGINT, how long running jobs may finish before they
                                       are abandoned to the next start's sweep (default ${DEFAULT_STOP_GRACE_MS})
  PORCHLIGHT_RATE_LIMIT_MAX_WAIT_S     the longest a GitHub call waits for a rate limit (default 60 s);
                                       a longer one parks the job until the reset (docs/operations.md)
  PORCHLIGHT_WEBHOOK_MAX_BYTES         largest webhook body accepted (default ${DEFAULT_WEBHOOK_MAX_BYTES}; more: 413)
  PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES webhook bodies held at once (default ${PENDING_BODIES} × the above)
  PORCHLIGHT_RENDER_TIMEOUT_MS         the longest one render, guardrail run, merge or variant mutation may
                                       run before it is stopped and reported as taking too long (default
                                       300000); each runs on a worker thread, so the app keeps serving
  PORCHLIGHT_RENDER_WORKERS            worker threads for that work (default 2)
  PORCHLIGHT_RENDER_MEMORY_MB          a worker thread's heap; past it that work fails (default 4096)
  PORCHLIGHT_CACHE_DIR                 where the app keeps its cache clones and the renderer's journal;
                                       kept across restarts, a restart renders as before (default: a new
                                       temporary directory)
  PORCHLIGHT_ALLOW_EXEC=1              let Kptfiles run exec functions (off by default)
  PORCHLIGHT_ALLOW_CONTAINER=1         let Kptfiles run container functions (off by default)
  PORCHLIGHT_REGISTRY_CREDENTIALS      a YAML file of named registry logins, each for one registry and
                                       the repositories (owner/name globs) allowed to use it; a
                                       repository picks one with \`registries: {HOST: NAME}\` in its
                                       .github/porchlight.yml (docs/sources.md). Set, the logins below
                                       are not used by the bot
  PORCHLIGHT_OCI_REGISTRY, _USERNAME, _PASSWORD, DOCKER_CONFIG
                                       the operator's registry login, used for every repository when
                                       PORCHLIGHT_REGISTRY_CREDENTIALS is unset (one owner's app)
${LIMIT_LINES}
  LOG_LEVEL                            pino level (default info)
Environment (embedded forge):
  PORCHLIGHT_DATA                      as --data
  FORGE_PORT                           the forge's port (default: the last one with --data, else any free)
  PORCHLIGHT_API_PORT                  the port of Porch's API for kubectl (default: the last one with
                                       --data if free, else any free; HTTPS, a kubeconfig per seeded
                                       user in the data folder, the same at each restart: docs/porch-api.md)
Environment (Porch's API, both modes):
  PORCHLIGHT_API_INDEX_MAX_AGE_MS      how old the API's index of a namespace may be before it is read again
                                       though no webhook said it changed (default 60000)
`;

const OPTIONS = {
  data: { type: "string" },
  demo: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const CREDENTIALS = ["APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET"] as const;

/**
 * GitHub App credentials from probot's environment variables; undefined when none of them is set (the
 * embedded forge). Some set and others missing is a deploy gone wrong: a UsageError naming what is
 * missing, never a quiet start of the demo forge in production.
 */
function credentials(
  env: NodeJS.ProcessEnv,
): { appId: string; privateKey: string; secret: string } | undefined {
  const given = (name: string) => env[name] !== undefined;
  const set = (name: string) => Boolean(env[name]?.trim());
  const keyGiven = given("PRIVATE_KEY") || given("PRIVATE_KEY_PATH");
  if (!given("APP_ID") && !keyGiven && !given("WEBHOOK_SECRET")) return undefined;
  const missing = CREDENTIALS.filter((name) =>
    name === "PRIVATE_KEY" ? !set("PRIVATE_KEY") && !set("PRIVATE_KEY_PATH") : !set(name),
  ).map((name) => (name === "PRIVATE_KEY" ? "PRIVATE_KEY (or PRIVATE_KEY_PATH)" : name));
  if (missing.length > 0) {
    const present = CREDENTIALS.filter((name) => !missing.some((m) => m.startsWith(name))).map((name) =>
      name === "PRIVATE_KEY" && !set("PRIVATE_KEY") ? "PRIVATE_KEY_PATH" : name,
    );
    throw new UsageError(
      `porchlight serve: ${present.join(" and ")} ${present.length === 1 ? "is" : "are"} set but ${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not: set ${missing.length === 1 ? "it" : "them"} to serve GitHub, or unset all of them (or pass --demo) for the embedded forge`,
    );
  }
  let key = env.PRIVATE_KEY?.trim() ? env.PRIVATE_KEY : undefined;
  if (!key) {
    try {
      key = readFileSync(env.PRIVATE_KEY_PATH as string, "utf8");
    } catch (e) {
      throw new UsageError(
        `porchlight serve: cannot read PRIVATE_KEY_PATH=${env.PRIVATE_KEY_PATH}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  const pem = checkPrivateKey(
    key,
    env.PRIVATE_KEY?.trim()
      ? { name: "PRIVATE_KEY" }
      : { name: "PRIVATE_KEY_PATH", path: env.PRIVATE_KEY_PATH as string },
  );
  return { appId: (env.APP_ID as string).trim(), privateKey: pem, secret: env.WEBHOOK_SECRET as string };
}

function baseUrl(env: NodeJS.ProcessEnv): string | undefined {
  return env.GHE_HOST ? `${env.GHE_PROTOCOL ?? "https"}://${env.GHE_HOST}/api/v3` : undefined;
}

/**
 * A whole number from the environment, at least `min`, or a UsageError naming the variable, the unit
 * and the default (a typo never silently becomes NaN or 0).
 */
function wholeFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  unit: string,
  min: number,
): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min) {
    const floor = min === 0 ? "(0 or more)" : `above ${min - 1}`;
    throw new UsageError(
      `porchlight serve: ${name} must be a whole number of ${unit} ${floor} (default ${fallback}), not "${text}"`,
    );
  }
  return Number(text);
}

/** A whole number of milliseconds from the environment (0 or more). */
export function msFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return wholeFromEnv(env, name, fallback, "milliseconds", 0);
}

/** PORCHLIGHT_RATE_LIMIT_MAX_WAIT_S: the longest a GitHub call waits for a rate limit (default 60 s). */
function maxWaitFromEnv(env: NodeJS.ProcessEnv): number {
  return wholeFromEnv(env, "PORCHLIGHT_RATE_LIMIT_MAX_WAIT_S", DEFAULT_MAX_WAIT_S, "seconds", 0);
}

/** PORCHLIGHT_RENDER_TIMEOUT_MS, _WORKERS and _MEMORY_MB: how the app bounds its package work. */
function packageWorkFromEnv(env: NodeJS.ProcessEnv): PackageWorkSettings {
  return {
    timeoutMs: wholeFromEnv(
      env,
      "PORCHLIGHT_RENDER_TIMEOUT_MS",
      DEFAULT_PACKAGE_WORK.timeoutMs,
      "milliseconds",
      1,
    ),
    workers: wholeFromEnv(
      env,
      "PORCHLIGHT_RENDER_WORKERS",
      DEFAULT_PACKAGE_WORK.workers,
      "worker threads",
      1,
    ),
    memoryMb: wholeFromEnv(env, "PORCHLIGHT_RENDER_MEMORY_MB", DEFAULT_PACKAGE_WORK.memoryMb, "MiB", 64),
  };
}

/** PORCHLIGHT_CONCURRENCY: jobs this process runs at once (1 or more; default 4). */
function concurrencyFromEnv(env: NodeJS.ProcessEnv): number {
  return wholeFromEnv(env, "PORCHLIGHT_CONCURRENCY", 4, "jobs", 1);
}

/** The webhook limits from PORCHLIGHT_WEBHOOK_MAX_BYTES and PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES. */
function webhookLimits(env: NodeJS.ProcessEnv): { webhookMaxBytes: number; webhookMaxPendingBytes: number } {
  const webhookMaxBytes = wholeFromEnv(env, WEBHOOK_MAX_BYTES_ENV, DEFAULT_WEBHOOK_MAX_BYTES, "bytes", 1);
  return {
    webhookMaxBytes,
    webhookMaxPendingBytes: wholeFromEnv(
      env,
      WEBHOOK_MAX_PENDING_BYTES_ENV,
      PENDING_BODIES * webhookMaxBytes,
      "bytes",
      1,
    ),
  };
}

/** What a package and a job may cost, from the PORCHLIGHT_MAX_* variables. */
function operatorLimits(env: NodeJS.ProcessEnv): Limits {
  try {
    return operatorLimitsFromEnv(env);
  } catch (e) {
    if (e instanceof LimitSettingError) throw new UsageError(`porchlight serve: ${e.message}`);
    throw e;
  }
}

/** PORCHLIGHT_EGRESS_ALLOW read now: an entry that is no address, range or host stops the start. */
function checkEgressAllow(env: NodeJS.ProcessEnv): void {
  try {
    egressPolicyFromEnv(env);
  } catch (e) {
    if (e instanceof SourceError) throw new UsageError(`porchlight serve: ${e.message}`);
    throw e;
  }
}

/**
 * `porchlight serve` (`npm start`): with APP_ID, PRIVATE_KEY (or PRIVATE_KEY_PATH) and WEBHOOK_SECRET,
 * the app serves GitHub as any probot app; without them, an embedded forge seeded with the example
 * repositories, and the app installed on it. Sweeps at start-up in both modes. Runs until SIGTERM or
 * SIGINT, then finishes its jobs.
 */
export const serveCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseCommandArgs("serve", args, OPTIONS, USAGE);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length)
    throw new UsageError(`porchlight serve: unknown argument "${positionals.join(" ")}"\n\n${USAGE}`);
  checkServeEnv(io.env, values.demo ? ["APP_ID", "GHE_HOST", "GHE_PROTOCOL", "REDIS_URL"] : []);
  const port = Number(io.env.PORT ?? 3000);
  const log = createLogger(io.env.LOG_LEVEL ? { level: io.env.LOG_LEVEL } : {});
  const creds = values.demo ? undefined : credentials(io.env);
  if (values.demo && [...CREDENTIALS, "PRIVATE_KEY_PATH"].some((name) => io.env[name] !== undefined))
    io.stderr("porchlight serve: --demo: the GitHub App credentials in the environment are ignored\n");
  const limits = webhookLimits(io.env);
  const packageLimits = operatorLimits(io.env);
  const stopGraceMs = msFromEnv(io.env, "PORCHLIGHT_STOP_GRACE_MS", DEFAULT_STOP_GRACE_MS);
  checkEgressAllow(io.env);
  optimiseLater();
  noFootprintCollections();
  let forge: Forge | undefined;
  let app: AppServer;
  let porchApi: { close: () => Promise<void> } | undefined;
  let stopped: Promise<void> | undefined;
  if (creds) {
    if (values.data ?? io.env.PORCHLIGHT_DATA)
      io.stderr(
        "porchlight serve: --data / PORCHLIGHT_DATA is for the embedded forge; serving GitHub, the app keeps no state of its own (GitHub holds it), so it is ignored\n",
      );
    const url = baseUrl(io.env);
    const redis = redisSettings(io.env);
    // the app's webhooks keep Porch's API's index current (PORCHLIGHT_API_PORT), in a fleet every replica's
    const heard: ((repository: string, event: string, payload?: unknown) => void)[] = [];
    app = await startAppServer({
      onRepositoryEvent: (repository, event, payload) => {
        for (const tell of heard) tell(repository, event, payload);
      },
      appId: creds.appId,
      privateKey: creds.privateKey,
      webhookSecret: creds.secret,
      ...(url ? { baseUrl: url } : {}),
      ...limits,
      port,
      host: io.env.HOST ?? "0.0.0.0",
      writeIntervalMs: msFromEnv(io.env, "PORCHLIGHT_WRITE_INTERVAL_MS", 1000),
      concurrency: concurrencyFromEnv(io.env),
      maxWaitS: maxWaitFromEnv(io.env),
      operatorRuntimes: operatorRuntimesFromEnv(io.env),
      packageWork: packageWorkFromEnv(io.env),
      stopGraceMs,
      reconcileIntervalMs: msFromEnv(io.env, "PORCHLIGHT_RECONCILE_INTERVAL_MS", 15 * 60_000),
      sweepAtStart: true,
      log,
      limits: packageLimits,
      ...redis,
    });
    io.stdout(`porchlight: listening on ${app.url} (webhooks at ${app.webhookUrl}, /healthz, /metrics)\n`);
    stopped = waitForSignal();
    const notices = redis.redis
      ? new RedisNotices({
          url: redis.redis.url,
          prefix: redis.redis.prefix ?? "porchlight",
          replica: redis.redis.replica ?? defaultReplica(),
          onError: (e) => log.warn({ err: e }, "Porch's API: the fleet's notices (Redis)"),
        })
      : undefined;
    try {
      const api = await servePorchApiOnGitHub(io.env, url, (listen) => heard.push(listen), {
        report: logUnreachable(io, "serve"),
        fleet: notices,
        botParked: (owner) => app.botParked(owner),
        onIndexError: (e) => log.warn({ err: e }, "Porch's API: the index"),
        ...(notices
          ? {
              shareAnswers: (local: AnswerCache) =>
                new SharedAnswers(local, notices.client, redis.redis?.prefix ?? "porchlight", (e) =>
                  log.warn({ err: e }, "Porch's API: GitHub's answers shared in Redis"),
                ),
            }
          : {}),
      });
      if (api) {
        porchApi = {
          close: async () => {
            await api.close();
            await notices?.close();
          },
        };
        io.stdout(api.text);
      } else await notices?.close();
    } catch (e) {
      await notices?.close();
      await app.close();
      throw e;
    }
  } else {
    if (io.env.REDIS_URL)
      io.stderr(
        "porchlight serve: REDIS_URL is for several replicas serving GitHub; the embedded forge runs in this one process, so it is ignored\n",
      );
    const dataDir = values.data ?? io.env.PORCHLIGHT_DATA;
    const started = await startServeForge(io.env, dataDir);
    forge = started.forge;
    const { world } = started;
    await registerSeeded(forge, world);
    const seededApp = forge.app(world.appId);
    if (!seededApp) throw new Error("the seeded forge has no app");
    const running = forge;
    // the app's webhooks keep Porch's API's index of package revisions current (one process)
    const heard: ((repository: string, event: string, payload?: unknown) => void)[] = [];
    app = await startAppServer({
      onRepositoryEvent: (repository, event, payload) => {
        for (const tell of heard) tell(repository, event, payload);
      },
      appId: world.appId,
      privateKey: seededApp.privateKeyPem,
      webhookSecret: world.webhookSecret,
      baseUrl: forge.apiUrl,
      ...limits,
      port,
      writeIntervalMs: 0,
      concurrency: concurrencyFromEnv(io.env),
      maxWaitS: maxWaitFromEnv(io.env),
      operatorRuntimes: operatorRuntimesFromEnv(io.env),
      packageWork: packageWorkFromEnv(io.env),
      stopGraceMs,
      reconcileIntervalMs: msFromEnv(io.env, "PORCHLIGHT_RECONCILE_INTERVAL_MS", 60_000),
      sweepAtStart: true,
      log,
      limits: packageLimits,
    }).catch(async (err: unknown) => {
      // the forge started first: stopped, so that the process ends with the app's error
      await running.stop();
      throw err;
    });
    forge.setWebhookUrl(app.webhookUrl);
    // a stop asked for while Porch's API starts is heard, and ends serve once it has started
    stopped = waitForSignal();
    io.stdout(nextSteps(forge.url, app, world, dataDir));
    const api = await servePorchApiOnForge(
      io.env,
      forge,
      world,
      (listen) => heard.push(listen),
      // an upstream a clone could not reach: the caller got one neutral message, the operator git's words
      logUnreachable(io, "serve"),
      // an approval waiting for checks the app parked for GitHub's rate limit is told so at once
      (owner) => app.botParked(owner),
    );
    porchApi = api;
    io.stdout(api.text);
  }
  await (stopped ?? waitForSignal());
  io.stdout(
    `porchlight: shutting down, finishing queued jobs (at most ${stopGraceMs / 1000} s, PORCHLIGHT_STOP_GRACE_MS; then they are left to the next start's sweep)…\n`,
  );
  await porchApi?.close();
  await app.close();
  await forge?.stop();
  return 0;
};

/**
 * REDIS_URL set: this process is one replica of a fleet sharing the work through Redis
 * (docs/scaling.md); PORCHLIGHT_REDIS_PREFIX and PORCHLIGHT_REPLICA name its keys and itself;
 * PORCHLIGHT_REDIS_LOCK_MS is how long a silent replica keeps its jobs before another takes them.
 */
function redisSettings(env: NodeJS.ProcessEnv): { redis?: RedisSettings } {
  const url = env.REDIS_URL?.trim();
  if (!url) return {};
  return {
    redis: {
      url,
      ...(env.PORCHLIGHT_REDIS_PREFIX ? { prefix: env.PORCHLIGHT_REDIS_PREFIX } : {}),
      // one name for the replica's jobs, logs and metrics and for its notices to the fleet's APIs
      replica: env.PORCHLIGHT_REPLICA || defaultReplica(),
      ...(env.PORCHLIGHT_REDIS_LOCK_MS ? { lockMs: msFromEnv(env, "PORCHLIGHT_REDIS_LOCK_MS", 30_000) } : {}),
    },
  };
}

/** A replica's name where PORCHLIGHT_REPLICA gives none: its host's and its process's. */
function defaultReplica(): string {
  return `${hostname()}-${process.pid}`;
}

export type { CliIO };

/**
 * Under V8 11 (Node 20), a function is optimised after eight times V8's default budget of calls and
 * loops (`porchlight fn`, a short run, takes four: bin/short-run.js), for the render threads the app
 * starts after this: the first push of a large package spent about 0.75 s of V8's background threads
 * optimising (measured by moving it to the render thread, --no-concurrent-recompilation), for functions
 * most of which ran once. Measured with bench/bot-e2e.ts by thread at 10,000 resources, those threads
 * and the render thread: 1.37–1.59 and 1.1–1.3 s at V8's budget, 1.2 and 1.3 at twice it, 0.85–1.05
 * and 1.3–1.4 at four times, 0.65–0.9 and 1.3–1.5 at eight, 0.6 and 1.5 at sixteen; the edits after it
 * were no slower. A function hot for weeks is optimised all the same, a little later. V8 12 and later (Node 22,
 * 24) count invocations instead and have no such flag.
 */
function optimiseLater(): void {
  if (process.versions.v8.startsWith("11.")) setFlagsFromString("--interrupt-budget=1081344");
}

/**
 * V8's memory reducer off for the render threads the app starts after this (the main thread's heap
 * was made before and keeps it). Some seconds after a render thread goes idle, the reducer runs up to
 * three full collections, 0.6 s apart, that compact its whole heap to give pages back to the system;
 * the next render takes them again. Measured with bench/bot-e2e.ts (BOT_E2E_REPEAT, 10,000 resources,
 * --trace-gc): such a series cost V8's background threads 0.35–0.6 s of CPU each time, and landed in
 * a third of the pushes outside the package, which cost the app 0.07–0.1 s otherwise. A render
 * thread's heap is bounded all the same (its caches are by size); V8's ordinary collections still run.
 */
function noFootprintCollections(): void {
  setFlagsFromString("--no-memory-reducer");
}
