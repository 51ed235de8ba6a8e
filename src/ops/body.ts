import type { IncomingMessage, ServerResponse } from "node:http";
import type { ByteBudget } from "./byte-budget.js";

export type BodyRead =
  | { ok: true; bytes: Buffer }
  /** Over the limit: `declared` when Content-Length said so (nothing was read), else counted while streaming. */
  | { ok: false; reason: "too-large"; bytes: number; declared: boolean }
  /** The bodies being read at once already hold the whole budget (or this sender's share of it). */
  | { ok: false; reason: "busy"; held: number }
  /** The body did not arrive in time: nothing came for `waitedMs` (`idle`), or not all of it within `waitedMs`. */
  | { ok: false; reason: "slow"; bytes: number; waitedMs: number; idle: boolean }
  | { ok: false; reason: "aborted" };

/** How fast a body must arrive: no pause longer than `idleMs`, all of it within `graceMs` + size / rate. */
export interface BodyPace {
  idleMs: number;
  graceMs: number;
  /** Bytes per second a body is expected to arrive at, at least (sets its deadline from its size). */
  minBytesPerSecond: number;
}

/**
 * GitHub sends a whole delivery at once and gives up on an answer after 10 s: a sender that pauses 5 s,
 * or sends slower than 1 MiB/s after 5 s, is no delivery GitHub counts — only a client holding the
 * budget.
 */
const DEFAULT_BODY_PACE: BodyPace = { idleMs: 5000, graceMs: 5000, minBytesPerSecond: 1024 * 1024 };

/** The request's Content-Length when it is a plain number, else undefined (chunked, or absent). */
export function declaredLength(req: IncomingMessage): number | undefined {
  const text = req.headers["content-length"];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Reads a request body of at most `limit` bytes. A Content-Length over the limit is refused before a
 * byte is read; a body without one (chunked) or longer than it said is counted as it arrives and
 * reading stops at the limit (the request is paused; what was read is dropped), so a request never
 * holds more than `limit` bytes in memory. Every byte kept is taken from `budget` for `source`; a chunk
 * that does not fit stops the read the same way, and so does a body that does not keep `pace`. The
 * bytes of a body read whole stay taken: the caller gives them back once done with it; any other
 * outcome gives them back here.
 */
export function readBoundedBody(
  req: IncomingMessage,
  limit: number,
  budget: ByteBudget,
  { source = "", pace = DEFAULT_BODY_PACE }: { source?: string; pace?: BodyPace } = {},
): Promise<BodyRead> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) {
    return Promise.resolve({ ok: false, reason: "too-large", bytes: declared, declared: true });
  }
  const deadlineMs = pace.graceMs + ((declared ?? limit) / pace.minBytesPerSecond) * 1000;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const slow = (idle: boolean) => {
      req.pause();
      chunks.length = 0;
      finish({ ok: false, reason: "slow", bytes: size, waitedMs: idle ? pace.idleMs : deadlineMs, idle });
    };
    let idleTimer = setTimeout(() => slow(true), pace.idleMs);
    const deadline = setTimeout(() => slow(false), deadlineMs);
    const finish = (result: BodyRead) => {
      clearTimeout(idleTimer);
      clearTimeout(deadline);
      if (!result.ok) budget.give(size, source);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      req.off("error", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit || !budget.take(chunk.length, source)) {
        const busy = size + chunk.length <= limit;
        req.pause();
        chunks.length = 0;
        finish(
          busy
            ? { ok: false, reason: "busy", held: budget.used }
            : { ok: false, reason: "too-large", bytes: size + chunk.length, declared: false },
        );
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => slow(true), pace.idleMs);
    };
    const onEnd = () => finish({ ok: true, bytes: Buffer.concat(chunks, size) });
    const onClose = () => finish({ ok: false, reason: "aborted" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    req.on("error", onClose);
  });
}

/** How long a refused upload may go on being discarded after its answer before the socket is cut. */
const LINGER_MS = 2000;

/**
 * Ends the connection of a refused upload without reading its body into memory, so that the sender
 * still gets the answer: once it is sent, our side of the socket is closed (FIN), whatever else arrives
 * is dropped as it comes, and the socket is destroyed when the sender closes its side or after
 * LINGER_MS. Destroying at once would reset a connection the sender is still writing to, and many
 * clients then lose the answer (a "lingering close", as web servers do).
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  req.removeAllListeners("data");
  req.on("data", () => {});
  req.resume();
  res.once("finish", () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("end", () => socket.destroy());
    socket.once("close", () => clearTimeout(timer));
  });
}
