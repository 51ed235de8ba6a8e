import { type Forge, type SeedResult, seed, startForge } from "@porchlight/forge";
import { pino } from "pino";
import { type AppServer, type AppServerOptions, startAppServer } from "../../src/app/server.js";
import { startPorchApi } from "../../src/cli/api.js";
import { registerSeeded } from "../../src/cli/serve-porch-api.js";
import { REVISIONS } from "../porchapi/fleet-replicas.js";
import { settleApp } from "./harness.js";

/** One request the forge served, as its request log holds it. */
type LoggedRequest = Forge["requestLog"]["entries"][number];

/** The seeded users of the embedded forge, by their permission on acme's repositories. */
type SeededUser = "maintainer" | "reviewer" | "reader";

export interface PorchWorld {
  forge: Forge;
  app: AppServer;
  seeded: SeedResult;
  /** Porch's API (plain HTTP on loopback). */
  api: string;
  tokens: Record<SeededUser, string>;
  /** One request to Porch's API as `user`: its status and parsed body. */
  request(
    user: SeededUser,
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: Record<string, unknown> & { message?: string } }>;
  /** Waits until every webhook is delivered and every job it started has run. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `porchlight serve` on the embedded forge, in this process, as serve.ts wires it (the seeded world, its
 * repositories registered, the app whose webhooks keep Porch's API's index current, the API beside it):
 * what the test reads is the forge's own request log, each request with the installation or the user
 * whose token made it.
 */
export async function porchWorld(
  opts: {
    app?: Partial<AppServerOptions>;
    env?: Record<string, string>;
    /** The clock of the forge and the app (rate-limit windows, parked jobs); default the system's. */
    now?: () => Date;
  } = {},
): Promise<PorchWorld> {
  const forge = await startForge(opts.now ? { now: opts.now } : {});
  const seeded = await seed(forge);
  await registerSeeded(forge, seeded);
  const creds = forge.app(seeded.appId);
  if (!creds) throw new Error("the seeded forge has no app");
  const heard: ((repository: string, event: string, payload?: unknown) => void)[] = [];
  const app = await startAppServer({
    onRepositoryEvent: (repository, event, payload) => {
      for (const tell of heard) tell(repository, event, payload);
    },
    appId: seeded.appId,
    privateKey: creds.privateKeyPem,
    webhookSecret: seeded.webhookSecret,
    baseUrl: forge.apiUrl,
    port: 0,
    writeIntervalMs: 0,
    retryAfterUnitMs: 1,
    log: pino({ level: process.env.E2E_LOG ?? "silent" }),
    ...(opts.now ? { now: opts.now } : {}),
    ...opts.app,
  });
  forge.setWebhookUrl(app.webhookUrl);
  const server = await startPorchApi({
    host: "127.0.0.1",
    port: 0,
    apiUrl: forge.apiUrl,
    env: { PORCHLIGHT_API_HTTP: "loopback", ...opts.env },
    changes: (listen) => heard.push(listen),
    botParked: (owner) => app.botParked(owner),
  });
  const token = (login: SeededUser) => seeded.users.find((u) => u.login === login)?.pat ?? "";
  const tokens = { maintainer: token("maintainer"), reviewer: token("reviewer"), reader: token("reader") };
  return {
    forge,
    app,
    seeded,
    api: server.url,
    tokens,
    async request(user, method, path, body, contentType = "application/json") {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${tokens[user]}`,
          ...(body === undefined ? {} : { "content-type": contentType }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    settle: () => settleApp(forge, app),
    async stop() {
      await server.close();
      await app.close();
      await forge.stop();
    },
  };
}

/**
 * The approval subresource set to Published by the maintainer, on the revision as a GET answers it
 * then, as Porch's clients approve: the PUT's answer (a refusal too, for the caller to read).
 */
export async function approveAsMaintainer(w: PorchWorld, name: string) {
  const current = await w.request("maintainer", "GET", `${REVISIONS}/${name}`);
  if (current.status >= 300) throw new Error(`get ${name}: ${current.status} ${current.body.message}`);
  const spec = (current.body as { spec?: object }).spec ?? {};
  return w.request("maintainer", "PUT", `${REVISIONS}/${name}/approval`, {
    ...current.body,
    spec: { ...spec, lifecycle: "Published" },
  });
}

/**
 * What the app spent of its GitHub budget: the REST and GraphQL requests made with its installation's
 * token or as the app itself (its JWT: installation tokens), not git over HTTP, not a 304 (GitHub does not
 * count one).
 */
export function appRequests(entries: readonly LoggedRequest[]): LoggedRequest[] {
  return entries.filter(
    (e) =>
      !e.route.includes(".git") &&
      e.status !== 304 &&
      (e.installationId !== null || (e.login === null && e.route.startsWith("/app"))),
  );
}

/** Requests counted by `METHOD route`, most first: what a flow cost, to read in a failure. */
export function byRoute(entries: readonly LoggedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) out[`${e.method} ${e.route}`] = (out[`${e.method} ${e.route}`] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}
