import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { unknownFields } from "./fields.js";
import { schemaOf } from "./openapi.js";
import { applyPatch, patchTypeOf } from "./patch.js";
import type { ApiResource, KubeObject } from "./resources.js";
import type { Route } from "./routes.js";
import type { PorchApiOptions } from "./server.js";
import { send } from "./server.js";
import { ApiError, conflict, successStatus } from "./status.js";
import type { Caller, ResourceStore } from "./store.js";
import { includeObjectOf, toTable, wantsTable } from "./table.js";
import { watchObjects } from "./watch.js";

/** One resource request, as the handler parsed it. */
export interface ObjectRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  route: Extract<Route, { kind: "object" }>;
  resource: ApiResource;
  store: ResourceStore;
  caller: Caller;
  opts: PorchApiOptions;
}

const rvOf = (o: KubeObject) => String(o.metadata?.resourceVersion ?? "");

/** A list's resourceVersion: what its objects' versions give, so a watch can tell whether it changed since. */
export function listVersion(objects: readonly KubeObject[]): string {
  const h = createHash("sha1");
  for (const o of objects) h.update(`${String(o.metadata?.name)}@${rvOf(o)}\n`);
  return h.digest("hex").slice(0, 16);
}

async function readBody(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max)
      throw new ApiError(
        "RequestEntityTooLarge",
        `the request body is larger than ${max} bytes, the limit of this server`,
      );
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError("BadRequest", `the request body is not JSON: ${(e as Error).message}`);
  }
}

/** `fieldValidation` (Strict by default, as kubectl asks): unknown fields refused, or reported as warnings. */
function validateFields(x: ObjectRequest, obj: unknown): void {
  const mode = x.url.searchParams.get("fieldValidation") ?? "Strict";
  if (mode === "Ignore") return;
  const schema = schemaOf(x.resource.schema);
  if (!schema) return;
  const unknown = unknownFields(obj, schema, schemaOf);
  if (unknown.length === 0) return;
  if (mode === "Strict")
    throw new ApiError(
      "BadRequest",
      `strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(", ")}`,
    );
  x.res.setHeader(
    "Warning",
    unknown.map((f) => `299 - "unknown field \\"${f}\\""`),
  );
}

function namespaceOf(x: ObjectRequest): string {
  const ns = x.route.namespace;
  if (!ns)
    throw new ApiError(
      "BadRequest",
      `${x.resource.resource} are listed one namespace (a GitHub owner) at a time: name it with -n OWNER; porchlight keeps no list of every owner`,
    );
  return ns;
}

function checkObject(x: ObjectRequest, body: unknown, name: string | undefined): KubeObject {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ApiError("BadRequest", `the body is not a ${x.resource.kind} object`);
  const obj = body as KubeObject;
  const want = `${x.resource.group}/${x.resource.version}`;
  if (obj.apiVersion !== undefined && obj.apiVersion !== want)
    throw new ApiError("BadRequest", `the object's apiVersion is ${String(obj.apiVersion)}, not ${want}`);
  if (obj.kind !== undefined && obj.kind !== x.resource.kind)
    throw new ApiError("BadRequest", `the object's kind is ${String(obj.kind)}, not ${x.resource.kind}`);
  const own = obj.metadata?.name;
  if (name !== undefined && own !== undefined && own !== name)
    throw new ApiError(
      "BadRequest",
      `the name of the object (${String(own)}) does not match the name in the URL (${name})`,
    );
  if (x.url.searchParams.has("dryRun"))
    throw new ApiError(
      "BadRequest",
      "dryRun is not supported: porchlight's writes are git pushes, and it cannot push for pretend",
    );
  return { apiVersion: want, kind: x.resource.kind, ...obj };
}

async function list(x: ObjectRequest, ns: string): Promise<void> {
  const params = x.url.searchParams;
  const store = x.store;
  if (!store.list)
    throw new ApiError(
      "MethodNotAllowed",
      `${x.resource.resource} are read one at a time: porchlight keeps no list of every GitHub owner`,
    );
  const opts = {
    labelSelector: params.get("labelSelector") ?? undefined,
    fieldSelector: params.get("fieldSelector") ?? undefined,
  };
  if (params.get("watch") === "true" || params.get("watch") === "1") {
    await watchObjects(x, ns, opts);
    return;
  }
  const items = await store.list(x.caller, ns, opts);
  const resourceVersion = listVersion(items);
  if (wantsTable(x.req.headers.accept))
    send(
      x.res,
      200,
      toTable(x.resource, items, { include: includeObjectOf(params.get("includeObject")), resourceVersion }),
    );
  else
    send(x.res, 200, {
      apiVersion: `${x.resource.group}/${x.resource.version}`,
      kind: `${x.resource.kind}List`,
      metadata: { resourceVersion },
      items,
    });
}

function answer(x: ObjectRequest, obj: KubeObject, code = 200): void {
  if (wantsTable(x.req.headers.accept))
    send(
      x.res,
      code,
      toTable(x.resource, [obj], {
        include: includeObjectOf(x.url.searchParams.get("includeObject")),
        resourceVersion: rvOf(obj),
      }),
    );
  else send(x.res, code, obj);
}

async function update(x: ObjectRequest, ns: string, name: string): Promise<void> {
  if (!x.store.update) throw new ApiError("MethodNotAllowed", `${x.resource.resource} cannot be updated`);
  const current = await x.store.get(x.caller, ns, name);
  const body = await readBody(x.req, x.opts.maxBodyBytes);
  let next: unknown;
  if (x.req.method === "PATCH") {
    const type = patchTypeOf(x.req.headers["content-type"]);
    if (!type)
      throw new ApiError(
        "UnsupportedMediaType",
        `the patch type ${String(x.req.headers["content-type"])} is not supported: use application/merge-patch+json or application/json-patch+json (server-side apply is not served yet)`,
      );
    next = applyPatch(current, type, body);
  } else next = body;
  validateFields(x, next);
  const obj = checkObject(x, next, name);
  const sent = obj.metadata?.resourceVersion;
  if (sent !== undefined && sent !== "" && sent !== rvOf(current))
    throw conflict(x.resource.resource, x.resource.group, name);
  answer(x, await x.store.update(x.caller, ns, obj, current, x.route.subresource));
}

/** Serves one resource request by its method: list, watch, get, create, update, patch or delete. */
export async function handleObject(x: ObjectRequest): Promise<void> {
  const ns = x.resource.namespaced ? namespaceOf(x) : "";
  const { name, subresource } = x.route;
  if (subresource !== undefined && !x.resource.subresources.some((s) => s.name === subresource))
    throw new ApiError("NotFound", "the server could not find the requested resource");
  const method = x.req.method ?? "GET";
  if (name === undefined) {
    if (method === "GET") return list(x, ns);
    if (method !== "POST" || !x.store.create)
      throw new ApiError("MethodNotAllowed", `${method} is not allowed on ${x.resource.resource}`);
    const body = await readBody(x.req, x.opts.maxBodyBytes);
    validateFields(x, body);
    return answer(x, await x.store.create(x.caller, ns, checkObject(x, body, undefined)), 201);
  }
  if (method === "GET") return answer(x, await x.store.get(x.caller, ns, name));
  if (method === "PUT" || method === "PATCH") return update(x, ns, name);
  if (method === "DELETE" && x.store.delete && subresource === undefined) {
    const gone = await x.store.delete(x.caller, ns, name);
    const uid = gone.metadata?.uid;
    return send(
      x.res,
      200,
      successStatus({
        name,
        group: x.resource.group,
        kind: x.resource.resource,
        ...(typeof uid === "string" ? { uid } : {}),
      }),
    );
  }
  throw new ApiError("MethodNotAllowed", `${method} is not allowed on ${x.resource.resource}/${name}`);
}
