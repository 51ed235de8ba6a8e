import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Forge } from "@porchlight/forge";
import { TEST_REDIS_URL } from "../util/redis.js";
import { type ServeProcess, spawnServe } from "./serve-child.js";

/**
 * A fleet of `porchlight serve` replicas as child processes on one Redis, behind a round-robin load
 * balancer, serving the embedded forge as GitHub: the fleet test (test/e2e/fleet.slow.ts) and the
 * fleet bench (bench/fleet.ts).
 */
export interface Replica extends ServeProcess {
  name: string;
}

/** `porchlight serve` as a child process: one replica of the fleet, on the shared Redis. */
export async function startReplica(
  forge: Forge,
  creds: ReturnType<Forge["createApp"]>,
  name: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<Replica> {
  const served = await spawnServe(
    forge,
    creds,
    {
      REDIS_URL: TEST_REDIS_URL,
      PORCHLIGHT_REDIS_PREFIX: prefix,
      PORCHLIGHT_REPLICA: name,
      PORCHLIGHT_REDIS_LOCK_MS: "4000",
      LOG_LEVEL: process.env.E2E_LOG ?? "warn",
      ...env,
    },
    `replica ${name}`,
  );
  return { name, ...served };
}

/** Whether a replica's process still runs. */
export function alive(r: Replica): boolean {
  return r.child.exitCode === null && r.child.signalCode === null;
}

/** The load balancer in front of the fleet: each delivery to the next live replica, round-robin. */
export async function roundRobin(
  live: () => Replica[],
): Promise<{ server: Server; url: string; sent: Map<string, number> }> {
  let next = 0;
  const sent = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const replicas = live();
    const to = replicas[next++ % replicas.length];
    if (!to) {
      res.writeHead(502).end("no replica\n");
      return;
    }
    sent.set(to.name, (sent.get(to.name) ?? 0) + 1);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => k.startsWith("x-") || k === "content-type"),
    ) as Record<string, string>;
    try {
      const answer = await fetch(to.webhookUrl, { method: "POST", headers, body: Buffer.concat(chunks) });
      res.writeHead(answer.status, { "content-type": "text/plain" }).end(await answer.text());
    } catch {
      res.writeHead(502).end("replica unreachable\n");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`,
    sent,
  };
}
