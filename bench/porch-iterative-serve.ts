// `porchlight serve` (the embedded forge, the app, Porch's API) as the porch-iterative bench's child
// process, from the sources, with one addition: it keeps a log of the HTTP requests its servers answer
// (method, path, the Authorization header, status), which the bench asks for over IPC to count the
// forge's requests by principal. The forge runs inside serve, so the bench cannot read its own request
// log; this log is taken at node's HTTP server, before any of porchlight's code sees the request.

import { writeFileSync } from "node:fs";
import { type IncomingMessage, Server, type ServerResponse } from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { main } from "../src/cli/main.js";

/** One request a server of this process answered. */
export interface ServedRequest {
  /** The port of the server that answered (the forge's, the app's, the API's). */
  port: number;
  method: string;
  /** The path with its query. */
  url: string;
  authorization: string;
  status: number;
  /** When the request came (ms since the epoch), and how long it took to answer (ms). */
  at: number;
  ms: number;
}

/** What the bench asks this process over IPC; answered as `{ id, value }`. */
export type ServeQuestion =
  | { op: "since"; from: number }
  /** How many requests the log holds (the log itself is not sent: at N = 100 it is thousands long). */
  | { op: "count" }
  /** Start V8's CPU profiler in this process; with `file`, stop it and write the profile there. */
  | { op: "profile"; file?: string };

export type ServeAsk = ServeQuestion & { id: number };

const served: ServedRequest[] = [];

const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]): boolean {
  if (event === "request") {
    const req = args[0] as IncomingMessage;
    const res = args[1] as ServerResponse;
    const port = (this.address() as AddressInfo | null)?.port ?? 0;
    const t0 = performance.now();
    res.once("finish", () =>
      served.push({
        port,
        method: req.method ?? "GET",
        url: req.url ?? "/",
        authorization: String(req.headers.authorization ?? ""),
        status: res.statusCode,
        at: performance.timeOrigin + t0,
        ms: performance.now() - t0,
      }),
    );
  }
  return (emit as (this: Server, event: string, ...args: unknown[]) => boolean).call(this, event, ...args);
} as typeof Server.prototype.emit;

let profiler: Session | undefined;

process.on("message", async (q: ServeAsk) => {
  if (q.op === "since") process.send?.({ id: q.id, value: served.slice(q.from) });
  else if (q.op === "count") process.send?.({ id: q.id, value: served.length });
  else if (q.file === undefined) {
    profiler = new Session();
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
    process.send?.({ id: q.id, value: [] });
  } else {
    const { profile } = (await profiler?.post("Profiler.stop")) ?? {};
    profiler?.disconnect();
    profiler = undefined;
    if (profile) writeFileSync(q.file, JSON.stringify(profile));
    process.send?.({ id: q.id, value: [] });
  }
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    process.disconnect?.();
  },
  (err) => {
    process.stderr.write(`porchlight: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    process.disconnect?.();
  },
);
