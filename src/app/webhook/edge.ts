import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { InstallationAccess } from "../../github/port.js";
import { type BodyPace, closeAfterAnswer, declaredLength, readBoundedBody } from "../../ops/body.js";
import { ByteBudget } from "../../ops/byte-budget.js";
import type { DeliveryLedger } from "./deliveries.js";
import { handledInstallation } from "./payloads.js";
import {
  busy,
  checkBody,
  checkHeaders,
  installationRefused,
  isRefusal,
  queueUnavailable,
  type Refusal,
  type RefusalReason,
  tooLarge,
  tooSlow,
} from "./refusals.js";

export { WEBHOOK_MAX_BYTES_ENV, WEBHOOK_MAX_PENDING_BYTES_ENV } from "./refusals.js";

/** GitHub caps webhook payloads at 25 MB; porchlight refuses anything larger by default. */
export const DEFAULT_WEBHOOK_MAX_BYTES = 25 * 1024 * 1024;
/** By default, the bodies read at once may hold four times one body's cap (100 MB). */
export const PENDING_BODIES = 4;
/** A body this small (declared) may be read from the reserve when the shared budget is full. */
const SMALL_BODY = 256 * 1024;
const RESERVE_BYTES = 16 * 1024 * 1024;

export interface WebhookEvent {
  id: string;
  name: string;
  payload: unknown;
}

export interface WebhookEdgeOptions {
  secret: string;
  /** Largest body taken, in bytes; a larger one gets 413 and is not read. */
  maxBytes: number;
  /**
   * The bytes all bodies being read may hold together; default four times `maxBytes`, half of it at
   * most from one address.
   */
  budget?: ByteBudget;
  /**
   * Kept for small bodies (at most SMALL_BODY bytes, as Content-Length declares: nearly every event
   * GitHub sends) when `budget` is full, so that large uploads held open cannot keep deliveries out.
   * Default 16 MiB, a quarter of it from one address.
   */
  reserve?: ByteBudget;
  /** How fast a body must arrive (DEFAULT_BODY_PACE): a sender that pauses or trickles is cut off. */
  pace?: BodyPace;
  log: Logger;
  /** Whether the app can act for the installation an event names (src/github/installation-access.ts). */
  installation(id: number): Promise<InstallationAccess>;
  /** Hands a verified, well-formed event to the app's handlers (probot's `webhooks.receive`). */
  receive(event: WebhookEvent): Promise<void>;
  /**
   * How long the handlers may take before the answer is 202 (they go on): GitHub counts a delivery
   * unanswered after 10 s. Default 9000 ms.
   */
  answerWithinMs?: number;
  /**
   * Deliveries already accepted by any replica (distributed mode): a delivery seen before is answered
   * 200 and dropped; Redis unreachable is answered 503.
   */
  deliveries?: DeliveryLedger;
  /** Told of every refusal (for the metrics): a short reason and the status answered. */
  refused?: (reason: RefusalReason, status: number) => void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The webhook edge, in front of probot: headers first, then the size (a Content-Length over the cap is
 * answered 413 before a byte is read; a chunked body is cut off at the cap), then the signature on the
 * raw bytes, and only then JSON, the fields the handlers read, and the installation. Each refusal is one
 * warn line in the log with the event and delivery id, and a plain-text answer GitHub shows in the
 * delivery log; no stack trace is ever sent.
 */
export function webhookEdge(opts: WebhookEdgeOptions): Handler {
  const budget =
    opts.budget ??
    new ByteBudget(
      PENDING_BODIES * opts.maxBytes,
      Math.max(opts.maxBytes, (PENDING_BODIES * opts.maxBytes) / 2),
    );
  const reserve = opts.reserve ?? new ByteBudget(RESERVE_BYTES, RESERVE_BYTES / 4);
  return async (req, res) => {
    const log = opts.log.child({
      event: req.headers["x-github-event"],
      deliveryId: req.headers["x-github-delivery"],
    });
    const refuse = (r: Refusal) => {
      log.warn({ status: r.status, ...r.fields }, r.message);
      opts.refused?.(r.reason, r.status);
      if (r.close) closeAfterAnswer(req, res);
      answer(res, r.status, r.text, r.headers);
    };
    let held = 0;
    const source = req.socket.remoteAddress ?? "";
    let pool = budget;
    try {
      if (req.method !== "POST") return answer(res, 405, "webhooks are POSTed here", { allow: "POST" });
      const head = checkHeaders(req);
      if (isRefusal(head)) return refuse(head);
      const declared = declaredLength(req);
      if (declared !== undefined && declared > opts.maxBytes)
        return refuse(tooLarge(opts.maxBytes, declared, true));
      if (req.headers.expect?.toLowerCase() === "100-continue") res.writeContinue();
      // a small delivery the shared budget cannot take now is read from the reserve
      if (declared !== undefined && declared <= SMALL_BODY && !budget.fits(declared, source)) pool = reserve;
      const body = await readBoundedBody(req, opts.maxBytes, pool, {
        source,
        ...(opts.pace ? { pace: opts.pace } : {}),
      });
      if (!body.ok) {
        if (body.reason === "too-large") return refuse(tooLarge(opts.maxBytes, body.bytes, body.declared));
        if (body.reason === "busy") return refuse(busy(budget.total, body.held));
        if (body.reason === "slow") return refuse(tooSlow(body));
        return log.info("webhook abandoned by the sender before its body ended");
      }
      held = body.bytes.length;
      const event = checkBody(opts.secret, head, body.bytes);
      if (isRefusal(event)) return refuse(event);
      const installation = handledInstallation(head.name, event.payload);
      if (installation !== undefined) {
        const access = await opts.installation(installation);
        if (!access.ok) return refuse(installationRefused(installation, access));
      }
      const ledger = opts.deliveries;
      if (ledger) {
        let fresh: boolean;
        try {
          fresh = await ledger.claim(head.id);
        } catch (err) {
          return refuse(queueUnavailable(err));
        }
        if (!fresh) {
          log.info("webhook dropped: this delivery was already accepted");
          return answer(res, 200, `delivery ${head.id} was already accepted; nothing more to do`);
        }
      }
      const handled = opts.receive({ id: head.id, name: head.name, payload: event.payload });
      if (ledger) {
        // Accepted once every job it starts is in the queue; a failure frees it for redelivery.
        try {
          await handled;
        } catch (err) {
          await ledger.release(head.id).catch(() => {});
          if (queueDown(err)) return refuse(queueUnavailable(err));
          throw err;
        }
        await ledger.accept(head.id).catch((err) => log.warn({ err }, "could not mark a delivery accepted"));
        return answer(res, 200, "ok");
      }
      if ((await settledWithin(handled, opts.answerWithinMs ?? 9000)) === "late") {
        handled.catch((err) => log.error({ err }, "webhook failed in a handler"));
        return answer(res, 202, "accepted; still being handled");
      }
      answer(res, 200, "ok");
    } catch (err) {
      log.error({ err }, "webhook failed in a handler");
      const id = req.headers["x-github-delivery"] ?? "(no id)";
      answer(res, 500, `porchlight could not handle delivery ${id}; its log says why`);
    } finally {
      pool.give(held, source);
    }
  };
}

/** Whether a handler failed because the shared queue could not take its job (an error of ioredis). */
function queueDown(err: unknown): boolean {
  if (err instanceof AggregateError) return err.errors.some(queueDown);
  const e = err as { name?: string; errors?: unknown[]; code?: string; message?: string } | null;
  if (!e || typeof e !== "object") return false;
  if (Array.isArray(e.errors) && e.errors.some(queueDown)) return true;
  return (
    e.name === "MaxRetriesPerRequestError" ||
    e.code === "ECONNREFUSED" ||
    /Stream isn't writeable|Connection is closed|enableOfflineQueue/.test(e.message ?? "")
  );
}

/** "done" when `work` settles within `ms` (its rejection is thrown), else "late". */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<"done" | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    return await Promise.race([work.then(() => "done" as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

function answer(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const body = `${text}\n`;
  res
    .writeHead(status, {
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      ...headers,
    })
    .end(body);
}
