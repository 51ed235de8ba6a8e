import type { IncomingMessage, ServerResponse } from "node:http";
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
import { openApiV2, openApiV3, openApiV3Root } from "./openapi.js";
import { API_RESOURCES, type ApiResource } from "./resources.js";
import { parseRoute, type Route } from "./routes.js";
import { ApiError, statusObject } from "./status.js";
import type { Caller, PorchStores } from "./store.js";
import { handleObject } from "./verbs.js";

/** How the API serves: its stores, and its bounds. */
export interface PorchApiOptions {
  stores: PorchStores;
  /** How often a watch reads the state again to report changes (also those made by git pushes). */
  watchPollMs: number;
  /** The largest request body taken; past it, 413. */
  maxBodyBytes: number;
  /** Reports a failure that is the server's own (an InternalError answered). */
  onError?: (err: unknown) => void;
}

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

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

function sendError(res: ServerResponse, err: unknown, opts: PorchApiOptions): void {
  const api =
    err instanceof ApiError
      ? err
      : new ApiError("InternalError", `Internal error occurred: ${(err as Error)?.message ?? String(err)}`);
  if (!(err instanceof ApiError)) opts.onError?.(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  send(res, api.code, statusObject(api));
}

/** The caller, from `Authorization: Bearer <GitHub token>`; 401 without one. */
function callerOf(req: IncomingMessage): Caller {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m?.[1])
    throw new ApiError(
      "Unauthorized",
      "Unauthorized: send a GitHub token as `Authorization: Bearer TOKEN` (a kubeconfig user's `token:`); porchlight acts on GitHub as that token",
    );
  return { token: m[1] };
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

/** The request handler of Porch's API: discovery, OpenAPI, and the resources through their stores. */
export function porchApiHandler(opts: PorchApiOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const history = new WatchHistory();
  return (req, res) => {
    const run = async () => {
      const url = new URL(req.url ?? "/", "http://porchlight");
      const route = parseRoute(url.pathname);
      if (route.kind === "health") {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.end("ok");
        return;
      }
      const caller = callerOf(req);
      if (req.method === "GET" && discovery(route, req, res)) return;
      if (route.kind !== "object")
        throw new ApiError("NotFound", "the server could not find the requested resource");
      const resource = resourceOf(route);
      const store = opts.stores[resource.resource];
      if (!store) throw new ApiError("NotFound", "the server could not find the requested resource");
      await handleObject({ req, res, url, route, resource, store, caller, opts, history });
    };
    run().catch((err) => sendError(res, err, opts));
  };
}
