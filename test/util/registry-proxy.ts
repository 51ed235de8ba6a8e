import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small fault-injecting proxy in front of a real registry: each request goes through `fault`, which
 * may answer it itself (a challenge, a 429, a redirect) or let it through, optionally altering the
 * registry's answer (a corrupt blob). Every request is logged with its Authorization header.
 */

interface ProxiedRequest {
  method: string;
  url: string;
  authorization?: string;
}

type Fault = (
  req: ProxiedRequest,
  res: ServerResponse,
) => "pass" | "handled" | { corrupt: true } | Promise<"pass" | "handled" | { corrupt: true }>;

export interface RegistryProxy {
  /** `127.0.0.1:PORT` (a loopback host: plain HTTP). */
  host: string;
  log: ProxiedRequest[];
  fault: Fault;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

export function hostOf(server: Server): string {
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startProxy(upstream: string): Promise<RegistryProxy> {
  const proxy: RegistryProxy = {
    host: "",
    log: [],
    fault: () => "pass",
    close: async () => {},
  };
  const server = await listen(async (req, res) => {
    const entry: ProxiedRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    };
    proxy.log.push(entry);
    try {
      const verdict = await proxy.fault(entry, res);
      if (verdict === "handled") return;
      const payload = await body(req);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (k === "host" || k === "authorization" || k === "connection" || v === undefined) continue;
        headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      }
      const hasBody = !["GET", "HEAD"].includes(entry.method);
      const up = await fetch(`http://${upstream}${entry.url}`, {
        method: entry.method,
        headers,
        ...(hasBody ? { body: payload } : {}),
        redirect: "manual",
      });
      let out = Buffer.from(await up.arrayBuffer());
      if (typeof verdict === "object" && verdict.corrupt && out.length > 0) {
        out = Buffer.from(out);
        out[out.length - 1] = (out[out.length - 1] ?? 0) ^ 0xff;
      }
      const h: Record<string, string> = {};
      up.headers.forEach((v, k) => {
        if (k === "content-length" || k === "transfer-encoding" || k === "connection") return;
        h[k] = k === "location" ? v.replace(upstream, proxy.host) : v;
      });
      if (entry.method !== "HEAD") h["content-length"] = String(out.length);
      else if (up.headers.get("content-length"))
        h["content-length"] = up.headers.get("content-length") ?? "0";
      res.writeHead(up.status, h);
      res.end(entry.method === "HEAD" ? undefined : out);
    } catch (err) {
      res.writeHead(502);
      res.end(String(err));
    }
  });
  proxy.host = hostOf(server);
  proxy.close = () => new Promise((r) => server.close(() => r()));
  return proxy;
}
