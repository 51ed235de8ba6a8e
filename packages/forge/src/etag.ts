import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Reply } from "./http.js";

/**
 * GitHub's conditional requests: every successful GET carries an `ETag` (a digest of what it answers: a
 * weak one for JSON, a strong one for raw bytes), and a GET whose `If-None-Match` names the current one is
 * answered 304 Not Modified without a body — which GitHub does not count against the rate limit.
 */
export function etagOf(reply: Reply): string | undefined {
  if (reply.status !== 200 || reply.body === undefined) return undefined;
  const bytes = Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body);
  const digest = createHash("sha1").update(bytes).digest("hex");
  return Buffer.isBuffer(reply.body) ? `"${digest}"` : `W/"${digest}"`;
}

/** Whether the request's `If-None-Match` names `etag` (weak comparison, as GitHub makes it; `*` matches any). */
export function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers["if-none-match"];
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}
