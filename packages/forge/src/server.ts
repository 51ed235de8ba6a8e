import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { actorOf, authenticate, installationIdOf, type Principal } from "./auth.js";
import { type Ctx, ForgeCore, rateKey } from "./context.js";
import { etagOf, notModified } from "./etag.js";
import { Faults } from "./faults.js";
import { GitStore } from "./git.js";
import { matchGitPath, serveGit } from "./githttp.js";
import { ApiError, errorBody, parseJson, type Reply, readBody } from "./http.js";
import { RateLimiter } from "./ratelimit.js";
import { RequestLog } from "./requestlog.js";
import { type Route, Router } from "./router.js";
import { registerRoutes } from "./routes/index.js";
import { Signal } from "./signal.js";
import { Store } from "./state.js";
import { Webhooks } from "./webhooks.js";

export interface ServerOptions {
  port: number;
  host: string;
  dataDir: string | null;
  now: () => Date;
  webhookTimeoutMs: number;
}

const MUTATING = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** The HTTP side of the forge: routing, auth, faults, rate limits, logging, git. */
export class ForgeServer {
  readonly core: ForgeCore;
  readonly faults = new Faults();
  readonly requestLog = new RequestLog();
  readonly router = new Router();
  private server: Server | undefined;
  private readonly ownedDir: string | null;
  readonly dataDir: string;
  private readonly sockets = new Set<import("node:net").Socket>();
  /** Fires after every request served and every webhook delivery attempt. */
  readonly changed = new Signal();

  constructor(readonly options: ServerOptions) {
    this.ownedDir = options.dataDir ? null : mkdtempSync(join(tmpdir(), "porchlight-forge-"));
    const dataDir = options.dataDir ?? this.ownedDir!;
    this.dataDir = dataDir;
    const store = Store.inDir(options.dataDir, options.now);
    this.core = new ForgeCore(
      store,
      new GitStore(privateFolder(join(dataDir, "repos"))),
      new Webhooks(store, { timeoutMs: options.webhookTimeoutMs, changed: this.changed }),
      { web: "", api: "" },
      new RateLimiter(options.now),
    );
    registerRoutes(this.router);
  }

  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        this.core.report(err);
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
          res.end(
            JSON.stringify({
              message: String(err),
              documentation_url: "https://docs.github.com/rest",
              status: "500",
            }),
          );
        } else res.destroy();
      });
    });
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    server.on("clientError", (_err, socket) => socket.destroy());
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err: NodeJS.ErrnoException) =>
        reject(
          err.code === "EADDRINUSE"
            ? new Error(
                `the forge cannot listen on ${this.options.host}:${this.options.port}: another program (another forge or porchlight serve?) listens there; give it a free port (--port for porchlight forge, FORGE_PORT for porchlight serve)`,
              )
            : err,
        ),
      );
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const web = `http://${this.options.host}:${port}`;
    this.core.urls.web = web;
    this.core.urls.api = `${web}/api/v3`;
    return web;
  }

  async close(): Promise<void> {
    await this.core.webhooks.idle();
    const server = this.server;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of this.sockets) s.destroy();
      });
    }
    await this.core.git.close();
    this.core.store.save();
    if (this.ownedDir) rmSync(this.ownedDir, { recursive: true, force: true });
  }

  private log(method: string, route: string, path: string, p: Principal, status: number): void {
    this.requestLog.record({
      method,
      route,
      path,
      installationId: installationIdOf(p),
      login: actorOf(p)?.login ?? null,
      status,
    });
    this.changed.notify();
  }

  private async applyFault(req: IncomingMessage, res: ServerResponse, route: string): Promise<boolean> {
    const fault = this.faults.take(req.method ?? "GET", route);
    if (!fault) return false;
    if (fault.hang) {
      const held = this.faults.hold(fault, (go) => req.socket.once("close", go));
      // Those waiting for the request to arrive (forge.waitFor) look now.
      this.changed.notify();
      await held;
      if (req.socket.destroyed) return true;
    }
    if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.reset) {
      req.socket.destroy();
      return true;
    }
    if (fault.status) {
      const err = new ApiError(
        fault.status,
        fault.message ?? (fault.status >= 500 ? "Server Error" : "Injected fault"),
      );
      send(res, { status: err.status, body: errorBody(err) });
      return true;
    }
    return false;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
    const path =
      url.pathname.startsWith("/api/v3/") || url.pathname === "/api/v3"
        ? url.pathname.slice(7) || "/"
        : url.pathname;

    const git = matchGitPath(url.pathname);
    if (git) {
      if (await this.applyFault(req, res, git.template)) {
        this.log(method, git.template, url.pathname, { kind: "anonymous" }, 0);
        return;
      }
      const { status, principal } = await serveGit(this.core, req, res, git, url);
      this.log(method, git.template, url.pathname, principal, status);
      return;
    }

    const match = this.router.match(method, path);
    if (!match || "methodMismatch" in match) {
      const reply = { status: 404, body: errorBody(new ApiError(404, "Not Found")) };
      req.resume();
      send(res, reply);
      this.log(method, path, path, { kind: "anonymous" }, 404);
      return;
    }
    const { route, params } = match;
    if (await this.applyFault(req, res, route.template)) {
      this.log(method, route.template, path, { kind: "anonymous" }, 0);
      return;
    }
    let principal: Principal = { kind: "anonymous" };
    let headers: Record<string, string> = {};
    let reply: Reply;
    try {
      principal = authenticate(this.core.store, req.headers.authorization);
      checkAuthMode(route, principal);
      if (principal.kind !== "anonymous" && principal.kind !== "app") {
        const { key, who } = rateKey(principal);
        headers = this.core.rateLimit.check(key, who, MUTATING.has(method));
      }
      if (!MUTATING.has(method)) req.resume();
      const body = MUTATING.has(method) ? parseJson(await readBody(req)) : {};
      const ctx: Ctx = {
        core: this.core,
        method,
        template: route.template,
        params,
        query: url.searchParams,
        body,
        accept: String(req.headers.accept ?? ""),
        principal,
        url,
      };
      reply = await route.handler(ctx);
      if (MUTATING.has(method)) this.core.store.saveSoon();
    } catch (err) {
      req.resume();
      if (err instanceof ApiError) {
        reply = { status: err.status, body: errorBody(err), headers: err.extra.headers ?? {} };
      } else {
        this.core.report(err);
        const message = err instanceof Error ? err.message : String(err);
        reply = {
          status: 500,
          body: {
            message: `Internal error: ${message}`,
            documentation_url: "https://docs.github.com/rest",
            status: "500",
          },
        };
      }
    }
    if (method === "GET") ({ reply, headers } = this.conditional(req, principal, reply, headers));
    send(res, { ...reply, headers: { ...headers, ...reply.headers } });
    this.log(method, route.template, path, principal, reply.status);
  }

  /**
   * A GET's answer with its ETag, or 304 Not Modified when the request's `If-None-Match` names it — not
   * counted against the primary limit, as on GitHub (`headers`: the rate-limit headers, given back).
   */
  private conditional(
    req: IncomingMessage,
    principal: Principal,
    reply: Reply,
    headers: Record<string, string>,
  ): { reply: Reply; headers: Record<string, string> } {
    const etag = etagOf(reply);
    if (etag === undefined) return { reply, headers };
    if (!notModified(req, etag)) return { reply: { ...reply, headers: { ...reply.headers, etag } }, headers };
    const { "content-type": _, ...kept } = reply.headers ?? {};
    const counted = principal.kind !== "anonymous" && principal.kind !== "app";
    return {
      reply: { status: 304, headers: { ...kept, etag } },
      headers: counted ? this.core.rateLimit.uncount(rateKey(principal).key) : headers,
    };
  }
}

function checkAuthMode(route: Route, p: Principal): void {
  if (route.auth === "none") return;
  if (route.auth === "jwt") {
    if (p.kind !== "app") {
      throw new ApiError(401, "A JSON web token could not be decoded");
    }
    return;
  }
  if (p.kind === "anonymous") throw new ApiError(401, "Requires authentication");
  if (route.auth === "installation" && p.kind !== "installation") {
    throw new ApiError(403, "This endpoint requires you to be authenticated as an installation.");
  }
  if (p.kind === "app") {
    throw new ApiError(403, "Resource not accessible by integration");
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = {
    "x-github-media-type": "github.v3; format=json",
    "x-github-api-version-selected": "2022-11-28",
    "x-github-request-id": `${Date.now().toString(16).toUpperCase()}:${Math.floor(Math.random() * 1e6)
      .toString(16)
      .toUpperCase()}`,
    ...reply.headers,
  };
  if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  if (Buffer.isBuffer(reply.body)) {
    // Raw bytes (a custom media type): the route names the content-type.
    res.writeHead(reply.status, { ...headers, "content-length": String(reply.body.length) });
    res.end(reply.body);
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * A folder of the data folder that holds private repositories: its owner's alone (0700), made so, and
 * made so again where it was there with a looser mode (a folder made beforehand, an older forge's), so
 * that whatever mode the data folder has, no other user reads a repository's objects.
 */
function privateFolder(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}
