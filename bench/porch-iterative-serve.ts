// `porchlight serve` (the embedded forge, the app, Porch's API) as the porch-iterative bench's child
// process, from the sources, with one addition: it keeps a log of the HTTP requests its servers answer
// (method, path, the Authorization header, status), which the bench asks for over IPC to count the
// forge's requests by principal. The forge runs inside serve, so the bench cannot read its own request
// log; this log is taken at node's HTTP server, before any of porchlight's code sees the request.
import { type IncomingMessage, Server, type ServerResponse } from "node:http";
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

export type ServeAsk = { id: number; op: "since"; from: number };

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

process.on("message", (q: ServeAsk) => {
  if (q.op === "since") process.send?.({ id: q.id, value: served.slice(q.from) });
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
