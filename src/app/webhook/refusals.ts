import type { IncomingMessage } from "node:http";
import type { InstallationAccess } from "../../github/port.js";
import { payloadProblem } from "./payloads.js";
import { signatureMatches } from "./signature.js";

/** The environment variable that sets the body cap (`webhookMaxBytes` in AppServerOptions). */
export const WEBHOOK_MAX_BYTES_ENV = "PORCHLIGHT_WEBHOOK_MAX_BYTES";
/** The variable that caps the bytes of all bodies being read at once (`webhookMaxPendingBytes`). */
export const WEBHOOK_MAX_PENDING_BYTES_ENV = "PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES";

export type RefusalReason =
  | "headers"
  | "no-signature"
  | "content-type"
  | "too-large"
  | "busy"
  | "slow"
  | "bad-signature"
  | "not-json"
  | "wrong-shape"
  | "installation"
  | "redis-down";

/** A delivery the edge will not take: what to answer, and the one log line that says why. */
export interface Refusal {
  reason: RefusalReason;
  status: number;
  /** The answer's body, shown in GitHub's delivery log. */
  text: string;
  /** The log line's fixed message. */
  message: string;
  fields?: Record<string, unknown>;
  /** Close the connection after answering: the rest of the body is never read. */
  close?: boolean;
  headers?: Record<string, string>;
}

export interface DeliveryHeaders {
  name: string;
  id: string;
  signature: string;
}

/** The headers every GitHub delivery has, or why this request is not one. */
export function checkHeaders(req: IncomingMessage): DeliveryHeaders | Refusal {
  const name = header(req, "x-github-event");
  const id = header(req, "x-github-delivery");
  const signature = header(req, "x-hub-signature-256");
  const type = header(req, "content-type") ?? "";
  if (!name || !id) {
    const text = "not a GitHub webhook: X-GitHub-Event and X-GitHub-Delivery are required";
    return { reason: "headers", status: 400, text, message: "webhook refused: headers missing" };
  }
  if (!signature) {
    const text = "X-Hub-Signature-256 is missing: give the webhook the app's WEBHOOK_SECRET";
    return { reason: "no-signature", status: 401, text, message: "webhook refused: no signature" };
  }
  if (!/^application\/json\b/i.test(type)) {
    return {
      reason: "content-type",
      status: 415,
      text: `content type ${type || "(none)"} is not taken: set the webhook's content type to application/json`,
      message: "webhook refused: content type is not application/json",
      fields: { contentType: type },
    };
  }
  return { name, id, signature };
}

/** A body over the cap: `bytes` as declared by Content-Length, or as counted when it passed the cap. */
export function tooLarge(limit: number, bytes: number, declared: boolean): Refusal {
  const size = declared ? `${bytes} bytes` : `more than ${limit} bytes`;
  return {
    reason: "too-large",
    status: 413,
    text: `payload too large: ${size}, over the limit of ${limit} bytes (${WEBHOOK_MAX_BYTES_ENV} raises it)`,
    message: "webhook refused: body too large",
    fields: { bytes, limit, declared },
    close: true,
  };
}

/** A body that paused too long, or arrived slower than any delivery GitHub sends: its bytes are let go. */
export function tooSlow(read: { bytes: number; waitedMs: number; idle: boolean }): Refusal {
  const s = `${Number((read.waitedMs / 1000).toFixed(1))} s`;
  const why = read.idle ? `nothing arrived for ${s}` : `it was still arriving after ${s}`;
  return {
    reason: "slow",
    status: 408,
    text: `webhook body too slow: ${why} (${read.bytes} bytes received); GitHub sends a delivery at once, so this one is dropped: redeliver it`,
    message: "webhook refused: body too slow",
    fields: { bytes: read.bytes, waitedMs: read.waitedMs, idle: read.idle },
    close: true,
  };
}

/** The bodies being read at once hold the whole budget. */
export function busy(budget: number, held: number): Refusal {
  return {
    reason: "busy",
    status: 503,
    text: `too many webhook bytes being received at once (${budget} bytes; ${WEBHOOK_MAX_PENDING_BYTES_ENV} raises it): redeliver later`,
    message: "webhook refused: too many bytes in flight",
    fields: { held, budget },
    close: true,
    headers: { "retry-after": "1" },
  };
}

/** The shared queue (Redis) did not answer: nothing was accepted, so GitHub's redelivery is what counts. */
export function queueUnavailable(err: unknown): Refusal {
  return {
    reason: "redis-down",
    status: 503,
    text: "porchlight's queue (Redis) is unreachable, so this delivery was not accepted: redeliver it once Redis is back",
    message: "webhook refused: Redis unreachable",
    fields: { err },
    headers: { "retry-after": "5" },
  };
}

/**
 * The event in a body: the signature checked on the raw bytes first (constant time), then JSON, then
 * the fields the handlers of this event read.
 */
export function checkBody(
  secret: string,
  head: DeliveryHeaders,
  body: Buffer,
): { payload: unknown } | Refusal {
  if (!signatureMatches(secret, body, head.signature)) {
    return {
      reason: "bad-signature",
      status: 401,
      text: "signature does not match the body: check that the webhook secret is the app's WEBHOOK_SECRET",
      message: "webhook refused: bad signature",
      fields: { bytes: body.length },
    };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString("utf8"));
  } catch (e) {
    const detail = (e as Error).message;
    const text = `the body is not JSON: ${detail}`;
    return {
      reason: "not-json",
      status: 400,
      text,
      message: "webhook refused: body is not JSON",
      fields: { detail },
    };
  }
  const problem = payloadProblem(head.name, payload);
  if (problem) {
    return {
      reason: "wrong-shape",
      status: 400,
      text: `${head.name} payload refused: ${problem.field}: ${problem.message}`,
      message: "webhook refused: payload has the wrong shape",
      fields: { ...problem },
    };
  }
  return { payload };
}

/** An installation the app cannot act for. */
export function installationRefused(
  installation: number,
  access: InstallationAccess & { ok: false },
): Refusal {
  return {
    reason: "installation",
    status: access.status,
    text: `${access.reason}; nothing was queued`,
    message: "webhook refused: installation not usable",
    fields: { installation, reason: access.reason },
  };
}

export function isRefusal(x: object): x is Refusal {
  return "reason" in x && "status" in x;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
