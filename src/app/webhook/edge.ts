import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { InstallationAccess } from "../../github/installation-access.js";
import { declaredLength, readBoundedBody } from "./body.js";
import { ByteBudget } from "./budget.js";
import { handledInstallation, payloadProblem } from "./payloads.js";
import { signatureMatches } from "./signature.js";

/** GitHub caps webhook payloads at 25 MB; porchlight refuses anything larger by default. */
export const DEFAULT_WEBHOOK_MAX_BYTES = 25 * 1024 * 1024;
/** The environment variable that sets the cap (`webhookMaxBytes` in AppServerOptions). */
export const WEBHOOK_MAX_BYTES_ENV = "PORCHLIGHT_WEBHOOK_MAX_BYTES";
/** The variable that caps the bytes of all bodies being read at once (`webhookMaxPendingBytes`). */
export const WEBHOOK_MAX_PENDING_BYTES_ENV = "PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES";
/** By default, the bodies read at once may hold four times one body's cap (100 MB). */
export const PENDING_BODIES = 4;

export interface WebhookEvent {
  id: string;
  name: string;
  payload: unknown;
}

export interface WebhookEdgeOptions {
  secret: string;
  /** Largest body taken, in bytes; a larger one gets 413 and is not read. */
  maxBytes: number;
  /** The bytes all bodies being read may hold together; default four times `maxBytes`. */
  budget?: ByteBudget;
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
  /** Told of every refusal (for the metrics): a short reason and the status answered. */
  refused?: (reason: RefusalReason, status: number) => void;
}

export type RefusalReason =
  | "headers"
  | "no-signature"
  | "content-type"
  | "too-large"
  | "busy"
  | "bad-signature"
  | "not-json"
  | "wrong-shape"
  | "installation";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The webhook edge, in front of probot: headers first, then the size (a Content-Length over the cap is
 * answered 413 before a byte is read; a chunked body is cut off at the cap), then the signature on the
 * raw bytes, and only then JSON, the fields the handlers read, and the installation. Each refusal is one
 * warn line in the log with the event and delivery id, and a plain-text answer GitHub shows in the
 * delivery log; no stack trace is ever sent.
 */
export function webhookEdge(opts: WebhookEdgeOptions): Handler {
  const budget = opts.budget ?? new ByteBudget(PENDING_BODIES * opts.maxBytes);
  return async (req, res) => {
    const name = header(req, "x-github-event");
    const id = header(req, "x-github-delivery");
    const log = opts.log.child({ event: name, deliveryId: id });
    const refuse = (
      reason: RefusalReason,
      status: number,
      text: string,
      fields: Record<string, unknown>,
      message: string,
    ) => {
      log.warn({ status, ...fields }, message);
      opts.refused?.(reason, status);
      answer(res, status, text);
    };
    const tooLarge = (bytes: number, declared: boolean) => {
      const size = declared ? `${bytes} bytes` : `more than ${opts.maxBytes} bytes`;
      const text = `payload too large: ${size}, over the limit of ${opts.maxBytes} bytes (${WEBHOOK_MAX_BYTES_ENV} raises it)`;
      const fields = { bytes, limit: opts.maxBytes, declared };
      // The connection closes once this is sent: the rest of the body is never read.
      res.setHeader("connection", "close");
      refuse("too-large", 413, text, fields, "webhook refused: body too large");
    };
    let held = 0;
    try {
      if (req.method !== "POST") {
        answer(res, 405, "webhooks are POSTed here", { allow: "POST" });
        return;
      }
      if (!name || !id) {
        const text = "not a GitHub webhook: X-GitHub-Event and X-GitHub-Delivery are required";
        return refuse("headers", 400, text, {}, "webhook refused: headers missing");
      }
      const signature = header(req, "x-hub-signature-256");
      if (!signature) {
        const text = "X-Hub-Signature-256 is missing: give the webhook the app's WEBHOOK_SECRET";
        return refuse("no-signature", 401, text, {}, "webhook refused: no signature");
      }
      const type = header(req, "content-type") ?? "";
      if (!/^application\/json\b/i.test(type)) {
        const text = `content type ${type || "(none)"} is not taken: set the webhook's content type to application/json`;
        return refuse(
          "content-type",
          415,
          text,
          { contentType: type },
          "webhook refused: content type is not application/json",
        );
      }
      const declared = declaredLength(req);
      if (declared !== undefined && declared > opts.maxBytes) {
        return tooLarge(declared, true);
      }
      if (header(req, "expect")?.toLowerCase() === "100-continue") res.writeContinue();
      const body = await readBoundedBody(req, opts.maxBytes, budget);
      if (!body.ok) {
        if (body.reason === "too-large") return tooLarge(body.bytes, body.declared);
        if (body.reason === "busy") {
          const text = `too many webhook bytes being received at once (${budget.total} bytes; ${WEBHOOK_MAX_PENDING_BYTES_ENV} raises it): redeliver later`;
          res.setHeader("connection", "close");
          res.setHeader("retry-after", "1");
          const fields = { held: body.held, budget: budget.total };
          return refuse("busy", 503, text, fields, "webhook refused: too many bytes in flight");
        }
        log.info("webhook abandoned by the sender before its body ended");
        return;
      }
      held = body.bytes.length;
      if (!signatureMatches(opts.secret, body.bytes, signature)) {
        const text =
          "signature does not match the body: check that the webhook secret is the app's WEBHOOK_SECRET";
        return refuse(
          "bad-signature",
          401,
          text,
          { bytes: body.bytes.length },
          "webhook refused: bad signature",
        );
      }
      let payload: unknown;
      try {
        payload = JSON.parse(body.bytes.toString("utf8"));
      } catch (e) {
        const detail = (e as Error).message;
        return refuse(
          "not-json",
          400,
          `the body is not JSON: ${detail}`,
          { detail },
          "webhook refused: body is not JSON",
        );
      }
      const problem = payloadProblem(name, payload);
      if (problem) {
        const text = `${name} payload refused: ${problem.field}: ${problem.message}`;
        return refuse(
          "wrong-shape",
          400,
          text,
          { ...problem },
          "webhook refused: payload has the wrong shape",
        );
      }
      const installation = handledInstallation(name, payload);
      if (installation !== undefined) {
        const access = await opts.installation(installation);
        if (!access.ok) {
          const text = `${access.reason}; nothing was queued`;
          const fields = { installation, reason: access.reason };
          return refuse(
            "installation",
            access.status,
            text,
            fields,
            "webhook refused: installation not usable",
          );
        }
      }
      const handled = opts.receive({ id, name, payload }).then(() => "done" as const);
      const late = new Promise<"late">((resolve) => {
        setTimeout(() => resolve("late"), opts.answerWithinMs ?? 9000).unref();
      });
      if ((await Promise.race([handled, late])) === "late") {
        answer(res, 202, "accepted; still being handled");
        handled.catch((err) => log.error({ err }, "webhook failed in a handler"));
        return;
      }
      answer(res, 200, "ok");
    } catch (err) {
      log.error({ err }, "webhook failed in a handler");
      answer(res, 500, `porchlight could not handle delivery ${id ?? "(no id)"}; its log says why`);
    } finally {
      budget.give(held);
    }
  };
}

function answer(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(`${text}\n`);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
