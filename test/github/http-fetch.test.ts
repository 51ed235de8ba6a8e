import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FetchInit, httpFetch } from "../../src/github/http-fetch.js";

/**
 * The command line's fetch (src/github/http-fetch.ts) against Node's own, on the same server: what
 * Octokit reads of an answer — status, URL, headers, body — and how a request fails must be the same.
 */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString();
    });
    req.on("end", () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** What a request looked like when it arrived: what fetch's redirect rules change. */
function echo(req: IncomingMessage, body: string, res: ServerResponse): void {
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.end(
    JSON.stringify({
      method: req.method,
      path: req.url,
      body,
      authorization: req.headers.authorization ?? null,
      contentType: req.headers["content-type"] ?? null,
      contentLength: req.headers["content-length"] ?? null,
    }),
  );
}

const JSON_BODY = JSON.stringify({ message: "ünïcode ✓", items: Array.from({ length: 200 }, (_, i) => i) });

function routes(other: () => string): Handler {
  return (req, body, res) => {
    const accepts = String(req.headers["accept-encoding"] ?? "");
    const path = req.url ?? "/";
    if (path === "/echo") return echo(req, body, res);
    if (path === "/gzip" || path === "/deflate" || path === "/br") {
      const enc = path.slice(1);
      // brotli is sent unasked, as a server may
      if (enc !== "br" && !accepts.includes(enc)) {
        res.statusCode = 406;
        return res.end(`not asked for ${enc}`);
      }
      const bytes = Buffer.from(JSON_BODY);
      const packed =
        enc === "gzip" ? gzipSync(bytes) : enc === "deflate" ? deflateSync(bytes) : brotliCompressSync(bytes);
      res.writeHead(200, { "content-type": "application/json", "content-encoding": enc });
      return res.end(packed);
    }
    if (path === "/headers") {
      res.writeHead(201, "Made", [
        ["X-Multi", "one"],
        ["Link", '<https://x/?page=2>; rel="next"'],
        ["x-multi", "two"],
        ["Content-Type", "text/plain; charset=utf-8"],
      ]);
      return res.end("\uFEFFtext with a byte order mark");
    }
    if (path === "/none") {
      res.statusCode = 204;
      return res.end();
    }
    if (path === "/missing") {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end('{"message":"Not Found"}');
    }
    const hop = /^\/(301|302|303|307|308)$/.exec(path);
    if (hop) {
      res.writeHead(Number(hop[1]), { location: "/echo" });
      return res.end();
    }
    if (path === "/elsewhere") {
      res.writeHead(302, { location: `${other()}/echo` });
      return res.end();
    }
    if (path === "/loop") {
      res.writeHead(302, { location: "/loop" });
      return res.end();
    }
    if (path === "/hang") return; // never answers
    res.statusCode = 500;
    res.end(`no route ${path}`);
  };
}

interface Seen {
  status: number;
  statusText: string;
  ok: boolean;
  url: string;
  redirected: boolean;
  headers: [string, string][];
  text: string;
}

type AnyFetch = (
  url: string,
  init?: FetchInit,
) => Promise<{
  status: number;
  statusText: string;
  ok: boolean;
  url: string;
  redirected: boolean;
  headers: Iterable<[string, string]>;
  text(): Promise<string>;
}>;

async function seen(f: AnyFetch, url: string, init?: FetchInit): Promise<Seen> {
  const r = await f(url, init);
  return {
    status: r.status,
    statusText: r.statusText,
    ok: r.ok,
    url: r.url,
    redirected: r.redirected,
    // the server's own headers (not the date, nor how the connection is kept)
    headers: [...r.headers].filter(([k]) => !["date", "connection", "keep-alive"].includes(k)),
    text: await r.text(),
  };
}

describe("the command line's fetch, beside Node's", () => {
  let a: { server: Server; url: string };
  let b: { server: Server; url: string };
  const node = fetch as unknown as AnyFetch;
  const ours = httpFetch as unknown as AnyFetch;

  beforeAll(async () => {
    b = await serve((req, body, res) => echo(req, body, res));
    a = await serve(routes(() => b.url));
  });
  afterAll(async () => {
    await close(a.server);
    await close(b.server);
  });

  const cases: [string, string, FetchInit | undefined][] = [
    ["a JSON answer, gzip-compressed", "/gzip", undefined],
    ["a deflate-compressed one", "/deflate", undefined],
    ["a brotli-compressed one, not asked for", "/br", undefined],
    ["headers repeated, in mixed case, and a text with a byte order mark", "/headers", undefined],
    ["no content", "/none", { method: "DELETE" }],
    ["a 404 with its message", "/missing", undefined],
    [
      "a POST with a body",
      "/echo",
      { method: "POST", body: '{"a":1}', headers: { "content-type": "application/json" } },
    ],
    ["a POST without a body", "/echo", { method: "POST" }],
    ["a PUT without a body", "/echo", { method: "PUT" }],
    [
      "a POST redirected by a 301 (then a GET, its body dropped)",
      "/301",
      { method: "POST", body: "x", headers: { "content-type": "text/plain" } },
    ],
    ["a POST redirected by a 302", "/302", { method: "POST", body: "x" }],
    ["a PATCH redirected by a 303", "/303", { method: "PATCH", body: "x" }],
    ["a POST redirected by a 307 (method and body kept)", "/307", { method: "POST", body: "kept" }],
    ["a PUT redirected by a 308", "/308", { method: "PUT", body: "kept" }],
    [
      "a GET with a token redirected to another origin (the token not carried)",
      "/elsewhere",
      { headers: { authorization: "token secret" } },
    ],
    ["a redirect not followed (manual)", "/302", { redirect: "manual" }],
  ];
  it.each(cases)("answers as fetch does: %s", async (_what, path, init) => {
    expect(await seen(ours, `${a.url}${path}`, init)).toEqual(await seen(node, `${a.url}${path}`, init));
  });

  it("keeps a token on a redirect within the origin", async () => {
    const r = await ours(`${a.url}/302`, { headers: { authorization: "token secret" } });
    expect(JSON.parse(await r.text())).toMatchObject({ path: "/echo", authorization: "token secret" });
  });

  /** How a request failed: the error's type and message, and its cause's code and message. */
  const failure = async (f: AnyFetch, url: string, init?: FetchInit) => {
    try {
      await f(url, init);
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      return {
        type: (e as Error).name,
        message: (e as Error).message,
        code: cause?.code,
        cause: cause?.message,
      };
    }
    throw new Error(`${url} did not fail`);
  };

  it("fails as fetch does where nothing listens: a TypeError whose cause says connection refused", async () => {
    const gone = await serve(() => {});
    await close(gone.server);
    const mine = await failure(ours, `${gone.url}/x`);
    expect(mine).toEqual(await failure(node, `${gone.url}/x`));
    expect(mine).toMatchObject({ type: "TypeError", message: "fetch failed", code: "ECONNREFUSED" });
  });

  it("fails after 20 redirects as fetch does", async () => {
    const mine = await failure(ours, `${a.url}/loop`);
    expect(mine).toEqual(await failure(node, `${a.url}/loop`));
  });

  it("fails with the signal's reason when aborted, before or while it waits", async () => {
    const before = AbortSignal.abort(new Error("gave up"));
    expect(await failure(ours, `${a.url}/echo`, { signal: before })).toEqual(
      await failure(node, `${a.url}/echo`, { signal: before }),
    );
    const abortLater = async (f: AnyFetch) => {
      const controller = new AbortController();
      const pending = failure(f, `${a.url}/hang`, { signal: controller.signal });
      // aborted once the server holds the request (it never answers /hang)
      await new Promise((resolve) => a.server.once("request", resolve));
      controller.abort();
      return pending;
    };
    const mine = await abortLater(ours);
    expect(mine).toEqual(await abortLater(node));
    expect(mine).toMatchObject({ type: "AbortError", message: "This operation was aborted" });
  });
});
