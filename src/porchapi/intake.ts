import type { IncomingMessage } from "node:http";
import { declaredLength, readBoundedBody } from "../ops/body.js";
import type { ByteBudget } from "../ops/byte-budget.js";
import type { ApiBounds } from "./bounds.js";
import { ApiError } from "./status.js";

/** A request body read whole; its bytes stay taken from the budget until `release`. */
export interface RequestBody {
  text: string;
  /** The same, as sent (a protobuf body is not text). */
  bytes: Buffer;
  release(): void;
}

/** Nothing to read: a GET, or a request that sent no body. */
const NO_BODY: RequestBody = { text: "", bytes: Buffer.alloc(0), release: () => {} };

/** Whether the request carries a body (a Content-Length above 0, or a chunked one). */
function hasBody(req: IncomingMessage): boolean {
  const declared = declaredLength(req);
  return declared !== undefined ? declared > 0 : req.headers["transfer-encoding"] !== undefined;
}

/**
 * Reads the body of an authenticated request within the server's bounds, as the webhook edge reads a
 * delivery (ops/body.ts): a Content-Length over the limit is refused before a byte is read; a body
 * that pauses or trickles is cut; the bytes every body being read or served holds at once come from
 * one budget, and a body that does not fit in it is refused, not queued. Each refusal is a Status
 * naming the bound and the setting that raises it.
 */
export async function readRequestBody(
  req: IncomingMessage,
  bounds: ApiBounds,
  budget: ByteBudget,
): Promise<RequestBody> {
  if (req.method === "GET" || req.method === "HEAD" || !hasBody(req)) return NO_BODY;
  const declared = declaredLength(req);
  if (declared !== undefined && declared <= bounds.maxBodyBytes && !budget.fits(declared)) throw busy(bounds);
  const read = await readBoundedBody(req, bounds.maxBodyBytes, budget, { pace: bounds.bodyPace });
  if (read.ok) {
    const size = read.bytes.length;
    let given = false;
    return {
      text: read.bytes.toString("utf8"),
      bytes: read.bytes,
      release: () => {
        if (!given) budget.give(size);
        given = true;
      },
    };
  }
  switch (read.reason) {
    case "too-large":
      throw new ApiError(
        "RequestEntityTooLarge",
        `the request body is ${read.declared ? "" : "more than "}${read.bytes} bytes, larger than ${bounds.maxBodyBytes}, the limit of this server (PORCHLIGHT_API_MAX_BODY_BYTES)`,
      );
    case "busy":
      throw busy(bounds);
    case "slow":
      throw new ApiError(
        "Timeout",
        read.idle
          ? `the request body stopped arriving: nothing came for ${read.waitedMs} ms (PORCHLIGHT_API_BODY_IDLE_MS) after ${read.bytes} bytes`
          : `the request body did not arrive within ${read.waitedMs} ms (${read.bytes} bytes came; PORCHLIGHT_API_BODY_MS and a rate of ${bounds.bodyPace.minBytesPerSecond} bytes a second set the deadline)`,
        undefined,
        408,
      );
    default:
      throw new ApiError("BadRequest", "the client closed the request before its body ended");
  }
}

function busy(bounds: ApiBounds): ApiError {
  return new ApiError(
    "TooManyRequests",
    `the server holds as many request bodies as it takes at once (${bounds.maxPendingBodyBytes} bytes, PORCHLIGHT_API_MAX_PENDING_BYTES); send it again shortly`,
    { retryAfterSeconds: 1 },
  );
}

/** How deep a body's objects and lists may nest: Porch's objects nest a dozen levels; files are strings. */
export const MAX_BODY_DEPTH = 100;

/**
 * The deepest nesting of `[` and `{` in JSON text, outside strings, counted without recursion: a body
 * nested past MAX_BODY_DEPTH is refused before anything walks it recursively (a patch, a schema check).
 */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * The deepest nesting of YAML's flow collections (`[` and `{`) in `text`, outside quoted scalars and
 * comments, counted without recursion: an apply body nested past MAX_BODY_DEPTH is refused before the
 * YAML parser, which recurses per level, walks it. A bracket inside a plain or block scalar counts too:
 * an over-count, never an under-count. (Block nesting needs a wider indent per level: the body's size
 * bounds it, and the parsed value's depth is checked after.)
 */
export function yamlFlowDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // "…" with backslash escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x27) {
      // '…' ('' is a quote within: two strings back to back, counted the same)
      while (++i < text.length && text.charCodeAt(i) !== 0x27);
    } else if (c === 0x23 && (i === 0 || /\s/.test(text.charAt(i - 1)))) {
      while (++i < text.length && text.charCodeAt(i) !== 0x0a);
    } else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return deepest;
}

/** The depth of a parsed value's objects and lists, walked without recursion, stopping past `limit`. */
export function valueDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== "object" || v === null) continue;
    const here = d + 1;
    deepest = Math.max(deepest, here);
    if (here > limit) return here;
    for (const child of Object.values(v)) stack.push([child, here]);
  }
  return deepest;
}

/** The refusal of a body nested past MAX_BODY_DEPTH. */
export function tooDeep(what: string): ApiError {
  return new ApiError(
    "BadRequest",
    `${what} nests objects and lists more than ${MAX_BODY_DEPTH} levels deep; Porch's objects nest a dozen`,
  );
}

/** A JSON body (`what` names it in a refusal: "the request body", "the DeleteOptions body"). */
export function parseJsonBody(text: string, what = "the request body"): unknown {
  if (jsonDepth(text) > MAX_BODY_DEPTH) throw tooDeep(what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError("BadRequest", `${what} is not JSON: ${(e as Error).message}`);
  }
}
