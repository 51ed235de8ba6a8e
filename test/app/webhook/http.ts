import { createHmac } from "node:crypto";
import { connect, type Socket } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";

/** X-Hub-Signature-256 of `body` under `secret`, as GitHub and the forge send it. */
export function sign(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface Delivery {
  event: string;
  body: string;
  secret?: string;
  signature?: string;
  id?: string;
}

/** POSTs a webhook over HTTP, signed with `secret` unless `signature` is given. */
export async function deliver(url: string, d: Delivery): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": d.event,
      "x-github-delivery": d.id ?? "delivery-1",
      "x-hub-signature-256": d.signature ?? sign(d.secret ?? "", d.body),
    },
    body: d.body,
  });
  return { status: res.status, text: await res.text() };
}

/** A request written by hand on a socket, so a test decides when (and whether) the body is sent. */
export interface RawRequest {
  socket: Socket;
  /** Everything the server sent, once it closed the connection (or the socket failed). */
  response: Promise<string>;
  /** Whether the server has sent anything yet. */
  answered(): boolean;
  /** Writes bytes; resolves when the socket took them (false once the socket is gone). */
  write(data: string | Buffer): Promise<boolean>;
}

export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): RawRequest {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = "";
  const response = new Promise<string>((resolve) => {
    socket.on("data", (d) => {
      received += d.toString("latin1");
    });
    socket.on("close", () => resolve(received));
    socket.on("error", () => {});
  });
  const head = [
    `${method} ${path} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  socket.write(head);
  return {
    socket,
    response,
    answered: () => received.length > 0,
    write: (data) =>
      new Promise((resolve) => {
        if (socket.destroyed) return resolve(false);
        socket.write(data, (err) => resolve(!err));
      }),
  };
}

/** Streams chunked-encoded pieces of `chunk` until the server answers or `max` bytes were sent. */
export async function streamChunked(req: RawRequest, chunk: Buffer, max: number): Promise<number> {
  let sent = 0;
  while (sent < max && !req.answered() && !req.socket.destroyed) {
    if (
      !(await req.write(
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]),
      ))
    )
      break;
    sent += chunk.length;
  }
  return sent;
}

/** A pino logger whose lines a test can read back. */
export function capturedLog(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}
