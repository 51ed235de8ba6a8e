import type { IncomingMessage } from "node:http";
import type { ByteBudget } from "./budget.js";

export type BodyRead =
  | { ok: true; bytes: Buffer }
  /** Over the limit: `declared` when Content-Length said so (nothing was read), else counted while streaming. */
  | { ok: false; reason: "too-large"; bytes: number; declared: boolean }
  /** The bodies being read at once already hold the whole budget. */
  | { ok: false; reason: "busy"; held: number }
  | { ok: false; reason: "aborted" };

/** The request's Content-Length when it is a plain number, else undefined (chunked, or absent). */
export function declaredLength(req: IncomingMessage): number | undefined {
  const text = req.headers["content-length"];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Reads a request body of at most `limit` bytes. A Content-Length over the limit is refused before a
 * byte is read; a body without one (chunked) or longer than it said is counted as it arrives and
 * reading stops at the limit (the request is paused; what was read is dropped), so a request never
 * holds more than `limit` bytes in memory. Every byte kept is taken from `budget`; a chunk that does not
 * fit stops the read the same way. The bytes of a body read whole stay taken: the caller gives them
 * back once done with it; any other outcome gives them back here.
 */
export function readBoundedBody(req: IncomingMessage, limit: number, budget: ByteBudget): Promise<BodyRead> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) {
    return Promise.resolve({ ok: false, reason: "too-large", bytes: declared, declared: true });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead) => {
      if (!result.ok) budget.give(size);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      req.off("error", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit || !budget.take(chunk.length)) {
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
    };
    const onEnd = () => finish({ ok: true, bytes: Buffer.concat(chunks, size) });
    const onClose = () => finish({ ok: false, reason: "aborted" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    req.on("error", onClose);
  });
}
