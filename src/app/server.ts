import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { Probot } from "probot";
import type { Limits } from "../config/limits.js";
import type { Runtime } from "../config/schema.js";
import { probotAppPort } from "../github/app-port.js";
import { porchlightOctokit } from "../github/octokit.js";
import { PorchlightEvents } from "../jobs/events.js";
import { KptRenderer } from "../jobs/kpt-renderer/index.js";
import type { Renderer } from "../jobs/renderer.js";
import { RepoQueues } from "../jobs/repo-queue.js";
import { scheduleSweeps } from "../jobs/sweep-schedule.js";
import { attributionEnabled } from "../kpt/attribution.js";
import { createLogger } from "../ops/logger.js";
import { Metrics } from "../ops/metrics.js";
import type { AppDeps } from "./deps.js";
import { enqueueFanout } from "./fanout.js";
import { botIdentity, once } from "./identity.js";
import { porchlightApp } from "./probot-app.js";
import { sweepInstallations } from "./sweep.js";
import { ByteBudget } from "./webhook/budget.js";
import { DEFAULT_WEBHOOK_MAX_BYTES, PENDING_BODIES, webhookEdge } from "./webhook/edge.js";

export interface AppServerOptions {
  appId: number | string;
  privateKey: string;
  webhookSecret: string;
  /** REST base URL: GitHub's by default; the forge's `${url}/api/v3`, or GitHub Enterprise's. */
  baseUrl?: string;
  port?: number;
  host?: string;
  webhookPath?: string;
  /** Largest webhook body taken, in bytes (default 25 MB, GitHub's own cap); larger ones get 413 unread. */
  webhookMaxBytes?: number;
  /** Bytes all webhook bodies being read at once may hold (default four times webhookMaxBytes); past it, 503. */
  webhookMaxPendingBytes?: number;
  /** Least time between two writes of one installation (1000 ms on GitHub; ~0 for the forge). */
  writeIntervalMs?: number;
  rateLimitRetries?: number;
  retryAfterUnitMs?: number;
  /** Jobs of different repositories running at once. */
  concurrency?: number;
  cacheDir?: string;
  operatorRuntimes?: Runtime[];
  /** What a package and a job may cost (PORCHLIGHT_MAX_*); absent: the defaults. */
  limits?: Limits;
  /**
   * Wait between the end of one periodic sweep and the start of the next; 0 or absent: no periodic
   * sweep (only `sweep()` on demand, and the start-up one).
   */
  reconcileIntervalMs?: number;
  /** Sweep once right after start-up (what was missed while the app was down). Default false. */
  sweepAtStart?: boolean;
  renderer?: Renderer;
  log?: Logger;
}

export interface AppServer {
  url: string;
  webhookUrl: string;
  queues: RepoQueues;
  events: PorchlightEvents;
  metrics: Metrics;
  /** Resolves when no job is waiting or running. */
  idle(): Promise<void>;
  /** Queues a reconcile job for every repository of every installation now. */
  sweep(): Promise<number>;
  /** Stops taking webhooks, finishes the queued jobs, then closes. */
  close(): Promise<void>;
}

const WEBHOOK_PATH = "/api/github/webhooks";

/**
 * The app's HTTP server: webhooks at `/api/github/webhooks` (our edge, src/app/webhook/edge.ts, checks
 * size, signature, shape and installation, then hands the event to probot), `/healthz` and `/metrics`
 * (Prometheus), and the periodic sweep. One call, one app: nothing is shared between two.
 */
export async function startAppServer(opts: AppServerOptions): Promise<AppServer> {
  const log = opts.log ?? createLogger();
  const metrics = new Metrics();
  const queues = new RepoQueues(opts.concurrency ?? 4, (outcome) => {
    const kind = outcome.key.split(":")[0] ?? "job";
    metrics.jobs.inc({ kind, outcome: outcome.ok ? "ok" : "error" });
    metrics.queueDepth.set(queues.size);
    if (!outcome.ok) log.error({ err: outcome.error, repo: outcome.repo, key: outcome.key }, "job failed");
  });
  const events = new PorchlightEvents((err, event) =>
    log.error({ err, tag: event.tag }, "a published-event listener failed"),
  );
  const probot = new Probot({
    appId: opts.appId,
    privateKey: opts.privateKey,
    secret: opts.webhookSecret,
    log,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    Octokit: porchlightOctokit({
      writeIntervalMs: opts.writeIntervalMs ?? 1000,
      rateLimitRetries: opts.rateLimitRetries ?? 3,
      ...(opts.retryAfterUnitMs !== undefined ? { retryAfterUnitMs: opts.retryAfterUnitMs } : {}),
      metrics,
    }),
  });
  const cacheDir = opts.cacheDir ?? mkdtempSync(join(tmpdir(), "porchlight-cache-"));
  const github = probotAppPort(probot, cacheDir);
  const deps: AppDeps = {
    queues,
    events,
    metrics,
    renderer: opts.renderer ?? new KptRenderer(undefined, undefined, attributionEnabled(process.env)),
    cacheDir,
    operatorRuntimes: opts.operatorRuntimes ?? ["builtin"],
    ...(opts.limits ? { operatorLimits: opts.limits } : {}),
    log,
    identity: once(async () => botIdentity(await github.identity())),
  };
  events.onPublished((event) => enqueueFanout(deps, github, event));
  const webhookPath = opts.webhookPath ?? WEBHOOK_PATH;
  await probot.load(porchlightApp(deps));
  const maxBytes = opts.webhookMaxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES;
  const webhooks = webhookEdge({
    secret: opts.webhookSecret,
    maxBytes,
    budget: new ByteBudget(Math.max(maxBytes, opts.webhookMaxPendingBytes ?? PENDING_BODIES * maxBytes)),
    log,
    installation: (id) => github.access(id),
    receive: (event) => probot.webhooks.receive(event as never),
    refused: (reason, status) => metrics.webhooksRefused.inc({ reason, status: String(status) }),
  });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void route(req, res, metrics, webhookPath, webhooks);
  };
  const server = createServer(handle);
  // `Expect: 100-continue` is answered by the edge once it decides to read the body (not before a 413).
  server.on("checkContinue", handle);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 3000, opts.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  const sweep = async () => {
    try {
      const repositories = await sweepInstallations(deps, github);
      metrics.sweeps.inc({ outcome: "ok" });
      log.info({ repositories }, "sweep queued");
      return repositories;
    } catch (err) {
      metrics.sweeps.inc({ outcome: "error" });
      throw err;
    }
  };
  const schedule = scheduleSweeps({
    intervalMs: opts.reconcileIntervalMs ?? 0,
    atStart: opts.sweepAtStart ?? false,
    sweep,
    onError: (err) => log.error({ err }, "sweep failed; the next one comes after the interval"),
  });
  return {
    url,
    webhookUrl: `${url}${webhookPath}`,
    queues,
    events,
    metrics,
    idle: () => queues.idle(),
    sweep,
    close: async () => {
      await schedule.stop();
      await closeServer(server);
      await queues.close();
    },
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: Metrics,
  webhookPath: string,
  webhooks: Handler,
) {
  const path = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" && path === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    return;
  }
  if (req.method === "GET" && path === "/metrics") {
    const text = await metrics.text();
    res.writeHead(200, { "content-type": metrics.contentType }).end(text);
    return;
  }
  if (path === webhookPath) {
    await webhooks(req, res);
    return;
  }
  res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
