import type { IncomingMessage, ServerResponse } from "node:http";
import type { TokenHolder } from "../github/connect.js";
import { closeAfterAnswer } from "../ops/body.js";
import { ByteBudget } from "../ops/byte-budget.js";
import { reviewStores } from "./access-review.js";
import type { ApiBounds } from "./bounds.js";
import {
  AGGREGATED_TYPE,
  aggregatedDiscovery,
  legacyCoreVersions,
  legacyGroup,
  legacyGroupList,
  legacyResourceList,
  wantsAggregated,
} from "./discovery.js";
import { WatchHistory } from "./history.js";
import { refuseImpersonation } from "./impersonation.js";
import { readRequestBody } from "./intake.js";
import { openApiV2, openApiV3, openApiV3Root } from "./openapi.js";
import { PROTOBUF, protobufAsJson } from "./protobuf.js";
import { API_RESOURCES, type ApiResource } from "./resources.js";
import { parseRoute, type Route } from "./routes.js";
import { ApiError, statusObject } from "./status.js";
import type { Caller, NamespaceAccessPort, PorchStores } from "./store.js";
import { handleObject } from "./verbs.js";
import { WatchSlots } from "./watch-slots.js";

/** How the API serves: its stores, how it tells a caller's token is one, and its bounds. */
export interface PorchApiOptions extends ApiBounds {
  stores: PorchStores;
  /**
   * Whether GitHub knows the caller's token, and whose it is (a token it refuses is answered 401, and a
   * request to act as someone else 403, before the request's body is read or anything is made for it).
   */
  authenticate(caller: Caller): Promise<TokenHolder>;
  /** The caller's GitHub permissions in a namespace, which `kubectl auth can-i` is answered from. */
  access?: NamespaceAccessPort;
  /** Reports a failure that is the server's own (an InternalError answered). */
  onError?: (err: unknown) => void;
}

/** What the server reports to `GET /version` (kubectl version asks). */
const VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-porchlight",
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "1970-01-01T00:00:00Z",
  goVersion: "",
  compiler: "porchlight",
  platform: "node",
};

export function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = "application/json",
): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(code, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A failure as a Status. One that is not the API's own (a bug, a file system error) is answered with a
 * message that names nothing of the server (no path, no stack): the operator's log has the error.
 */
function sendError(req: IncomingMessage, res: ServerResponse, err: unknown, opts: PorchApiOptions): void {
  const api =
    err instanceof ApiError
      ? err
      : new ApiError(
          "InternalError",
          "Internal error occurred: the server failed this request; its log says why",
        );
  if (!(err instanceof ApiError)) opts.onError?.(err);
  if (res.headersSent || res.destroyed) {
    res.end();
    return;
  }
  // a body not read (refused before it, or cut) is not read now: the answer goes, then the connection
  if (!req.complete) closeAfterAnswer(req, res);
  const retry = api.details?.retryAfterSeconds;
  if (retry !== undefined) res.setHeader("Retry-After", String(retry));
  send(res, api.code, statusObject(api));
}

const UNAUTHORIZED =
  "Unauthorized: send a GitHub token as `Authorization: Bearer TOKEN` (a kubeconfig user's `token:`); porchlight acts on GitHub as that token";

/** The caller, from `Authorization: Bearer <GitHub token>`; 401 without one. */
function callerOf(req: IncomingMessage, signal: AbortSignal): Caller {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m?.[1]) throw new ApiError("Unauthorized", UNAUTHORIZED);
  return { token: m[1], signal };
}

function discovery(route: Route, req: IncomingMessage, res: ServerResponse): boolean {
  const aggregated = wantsAggregated(req.headers.accept);
  const answer = (body: Record<string, unknown> | undefined, type?: string) => {
    if (body === undefined)
      throw new ApiError("NotFound", "the server could not find the requested resource");
    send(res, 200, body, type);
  };
  switch (route.kind) {
    case "core":
      if (route.version) answer(legacyResourceList("", route.version));
      else if (aggregated) answer(aggregatedDiscovery(true), AGGREGATED_TYPE);
      else answer(legacyCoreVersions());
      return true;
    case "groups":
      if (aggregated) answer(aggregatedDiscovery(false), AGGREGATED_TYPE);
      else answer(legacyGroupList());
      return true;
    case "group":
      answer(legacyGroup(route.group));
      return true;
    case "resources":
      answer(legacyResourceList(route.group, route.version));
      return true;
    case "openapi-v2":
      answer(openApiV2());
      return true;
    case "openapi-v3-root":
      answer(openApiV3Root());
      return true;
    case "openapi-v3":
      answer(openApiV3(route.group, route.version));
      return true;
    case "version":
      answer(VERSION);
      return true;
    default:
      return false;
  }
}

function resourceOf(route: Extract<Route, { kind: "object" }>): ApiResource {
  const r = API_RESOURCES.find(
    (x) => x.group === route.group && x.version === route.version && x.resource === route.resource,
  );
  if (!r) throw new ApiError("NotFound", "the server could not find the requested resource");
  return r;
}

/** Porch's API as a request handler, and how to stop it. */
export interface PorchApi {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Cancels every request in flight (their signals abort, so their calls to GitHub end) and waits for
   * them to end, `stopMs` at most: past it, what is left is let go and the stop goes on.
   */
  stop(): Promise<void>;
}

/** Porch's API: discovery, OpenAPI, and the resources through their stores, within its bounds. */
export function porchApi(opts: PorchApiOptions): PorchApi {
  const history = new WatchHistory();
  const watches = new WatchSlots(opts.maxWatches, opts.maxWatchesPerToken);
  const budget = new ByteBudget(opts.maxPendingBodyBytes);
  const inFlight = new Map<Promise<void>, AbortController>();
  const reviews = reviewStores(opts.access);
  const serve = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => {
    const url = new URL(req.url ?? "/", "http://porchlight");
    const route = parseRoute(url.pathname);
    if (route.kind === "health") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok");
      return;
    }
    const caller = callerOf(req, signal);
    // before anything else is read or made for it: a token GitHub does not know gets nothing more
    const holder = await opts.authenticate(caller);
    if (holder.kind === "refused")
      throw new ApiError("Unauthorized", `${UNAUTHORIZED}; GitHub does not accept the token sent`);
    // discovery is the same document for every caller, so it is answered whoever the request asks to
    // act as: kubectl reads it before any request, and a refused one leaves it saying only "unknown"
    if (req.method === "GET" && discovery(route, req, res)) return;
    // anything read or done for a caller refuses to act as someone else: a token speaks for its own
    // GitHub user only, and answering for it would answer `auth can-i --as maintainer` for the reader
    refuseImpersonation(req, holder);
    if (route.kind !== "object")
      throw new ApiError("NotFound", "the server could not find the requested resource");
    const resource = resourceOf(route);
    const store = opts.stores[resource.resource] ?? reviews[resource.resource];
    if (!store) throw new ApiError("NotFound", "the server could not find the requested resource");
    const body = await readRequestBody(req, opts, budget);
    try {
      await handleObject({
        req,
        res,
        url,
        route,
        resource,
        store,
        caller,
        opts,
        history,
        watches,
        // kubectl sends its built-in kinds (a review) in protobuf; the rest of the API reads JSON
        body: (req.headers["content-type"] ?? "").startsWith(PROTOBUF)
          ? protobufAsJson(body.bytes)
          : body.text,
      });
    } finally {
      body.release();
    }
  };
  return {
    handle(req, res) {
      const cancel = new AbortController();
      // the request ends when its answer is sent or its connection closes, whichever comes first
      res.once("close", () => cancel.abort());
      const work = serve(req, res, cancel.signal).catch((err) => {
        // cancelled with its client gone: nobody to answer, and no failure of the server's
        if (cancel.signal.aborted && res.destroyed) return;
        sendError(req, res, err, opts);
      });
      inFlight.set(work, cancel);
      work.finally(() => inFlight.delete(work));
    },
    async stop() {
      for (const cancel of inFlight.values()) cancel.abort();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, opts.stopMs);
      });
      await Promise.race([Promise.allSettled([...inFlight.keys()]), late]);
      clearTimeout(timer);
    },
  };
}
