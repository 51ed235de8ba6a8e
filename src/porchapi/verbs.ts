import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ApplyRequest, parseApplied, recordUpdate, serverSideApply } from "./apply.js";
import { checkedFields } from "./fields.js";
import { historyScope, stateOf, type WatchHistory } from "./history.js";
import { MAX_BODY_DEPTH, parseJsonBody, tooDeep, valueDepth } from "./intake.js";
import { checkLabelsAndAnnotations } from "./object-meta.js";
import { schemaOf } from "./openapi.js";
import { applyPatch, isApplyPatch, patchTypeOf } from "./patch.js";
import type { ApiResource, KubeObject } from "./resources.js";
import type { Route } from "./routes.js";
import type { PorchApiOptions } from "./server.js";
import { send } from "./server.js";
import { ApiError, conflict, successStatus } from "./status.js";
import type { Caller, ListOptions, ResourceStore, WriteOptions } from "./store.js";
import { checkCreate, checkUpdate } from "./strategy.js";
import { includeObjectOf, toTable, wantsTable } from "./table.js";
import { watchObjects } from "./watch.js";
import type { WatchSlots } from "./watch-slots.js";

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
  /** The states lists and watches answered, where a watch resumes from. */
  history: WatchHistory;
  /** The watches open now, within the server's bounds. */
  watches: WatchSlots;
  /** The request's body, read within the server's bounds (intake.ts); "" for none. */
  body: string;
}

const rvOf = (o: KubeObject) => String(o.metadata?.resourceVersion ?? "");

/** A list's resourceVersion: what its objects' versions give, so a watch can tell whether it changed since. */
function listVersion(objects: readonly KubeObject[]): string {
  const h = createHash("sha1");
  for (const o of objects) h.update(`${String(o.metadata?.name)}@${rvOf(o)}\n`);
  return h.digest("hex").slice(0, 16);
}

/** The object as `fieldValidation` leaves it (fields.ts), its warnings sent as the API server's. */
function validateFields(x: ObjectRequest, obj: unknown): unknown {
  const mode = x.url.searchParams.get("fieldValidation");
  const checked = checkedFields(obj, schemaOf(x.resource.schema), schemaOf, mode);
  if (checked.warnings.length > 0) x.res.setHeader("Warning", checked.warnings);
  return checked.value;
}

/**
 * `dryRun=All`: the write is checked (the object, the caller's permission, the store's own rules) and
 * answered as it would be made, and nothing is written. Any other value is refused, as the API server's.
 */
function dryRunOf(x: ObjectRequest, fromBody: readonly unknown[] = []): WriteOptions {
  const values = [...x.url.searchParams.getAll("dryRun"), ...fromBody.map(String)];
  if (values.length === 0) return {};
  const bad = values.find((v) => v !== "All");
  if (bad !== undefined)
    throw new ApiError("BadRequest", `dryRun: Unsupported value: "${bad}": supported values: "All"`);
  if (!x.store.dryRun)
    throw new ApiError(
      "BadRequest",
      `dryRun is not served for ${x.resource.resource}: their writes are checked only as they are made`,
    );
  return { dryRun: true };
}

/** The request's namespace; "" for a list or watch across every namespace (`kubectl get -A`). */
function namespaceOf(x: ObjectRequest): string {
  const ns = x.route.namespace;
  if (ns) return ns;
  if (x.route.name === undefined && (x.req.method ?? "GET") === "GET") return "";
  throw new ApiError(
    "BadRequest",
    `a ${x.resource.singular} is in a namespace (a GitHub owner): name it with -n OWNER`,
  );
}

/**
 * The objects of namespace `ns`, or with "" of every namespace the caller can see (the namespaces store's
 * list: the owners whose registrations they can read), each object naming its own.
 */
export async function listIn(x: ObjectRequest, ns: string, opts: ListOptions): Promise<KubeObject[]> {
  const list = x.store.list;
  if (!list) return [];
  if (ns !== "" || !x.resource.namespaced) return list(x.caller, ns, opts);
  const namespaces = x.opts.stores.namespaces?.list;
  if (!namespaces)
    throw new ApiError(
      "BadRequest",
      `${x.resource.resource} are listed one namespace at a time: use -n OWNER`,
    );
  const names = (await namespaces(x.caller, "", {})).map((o) => String(o.metadata?.name));
  return (await Promise.all(names.map((n) => list(x.caller, n, opts)))).flat();
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
  // before any store sees it: a refused object is never committed
  checkLabelsAndAnnotations(x.resource, obj, String(own ?? name ?? ""));
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
  const items = await listIn(x, ns, opts);
  const resourceVersion = listVersion(items);
  x.history.remember(
    historyScope(x.caller.token, x.resource.resource, ns, opts),
    resourceVersion,
    stateOf(items),
  );
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

/** The object, or undefined where there is none (an apply creates it). */
async function existing(x: ObjectRequest, ns: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await x.store.get(x.caller, ns, name);
  } catch (e) {
    if (e instanceof ApiError && e.reason === "NotFound") return undefined;
    throw e;
  }
}

/** Server-side apply (apply.ts): the object as the field manager's configuration makes it, created or updated. */
async function apply(x: ObjectRequest, ns: string, name: string): Promise<void> {
  const applied = parseApplied(x.body);
  if (valueDepth(applied, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw tooDeep("the apply configuration");
  const current = x.route.subresource === undefined ? await existing(x, ns, name) : undefined;
  if (x.route.subresource !== undefined)
    throw new ApiError(
      "UnsupportedMediaType",
      "server-side apply is served for objects, not their subresources",
    );
  const params = x.url.searchParams;
  const req: ApplyRequest = {
    manager: params.get("fieldManager"),
    force: params.get("force") === "true",
    apiVersion: `${x.resource.group}/${x.resource.version}`,
    resource: x.resource.resource,
    group: x.resource.group,
    name,
    ownership: x.store.managedFields ? "managedFields" : "annotation",
    now: new Date(),
  };
  const next = serverSideApply(current, applied, req);
  const obj = checkObject(x, validateFields(x, next), name);
  if (current === undefined) {
    if (!x.store.create) throw new ApiError("NotFound", `${x.resource.resource} "${name}" not found`);
    checkCreate(x.resource, obj, name);
    return answer(x, await x.store.create(x.caller, ns, obj, dryRunOf(x)), 201);
  }
  checkUpdate(x.resource, obj, current, undefined);
  const sent = (applied as KubeObject).metadata?.resourceVersion;
  if (sent !== undefined && sent !== "" && sent !== rvOf(current))
    throw conflict(x.resource.resource, x.resource.group, name);
  if (!x.store.update) throw new ApiError("MethodNotAllowed", `${x.resource.resource} cannot be updated`);
  answer(x, await x.store.update(x.caller, ns, obj, current, undefined, dryRunOf(x)));
}

async function update(x: ObjectRequest, ns: string, name: string): Promise<void> {
  if (x.req.method === "PATCH" && isApplyPatch(x.req.headers["content-type"])) return apply(x, ns, name);
  if (!x.store.update) throw new ApiError("MethodNotAllowed", `${x.resource.resource} cannot be updated`);
  const current = await x.store.get(x.caller, ns, name);
  const body = parseJsonBody(x.body);
  let next: unknown;
  if (x.req.method === "PATCH") {
    const type = patchTypeOf(x.req.headers["content-type"]);
    if (!type)
      throw new ApiError(
        "UnsupportedMediaType",
        `the patch type ${String(x.req.headers["content-type"])} is not supported: use application/merge-patch+json, application/json-patch+json or application/apply-patch+yaml (server-side apply)`,
      );
    next = applyPatch(current, type, body);
  } else next = body;
  const obj = recorded(x, current, checkObject(x, validateFields(x, next), name));
  checkUpdate(x.resource, obj, current, x.route.subresource);
  const sent = obj.metadata?.resourceVersion;
  if (sent !== undefined && sent !== "" && sent !== rvOf(current))
    throw conflict(x.resource.resource, x.resource.group, name);
  answer(x, await x.store.update(x.caller, ns, obj, current, x.route.subresource, dryRunOf(x)));
}

/**
 * The object with its writer's Update entry in managedFields, for a store that keeps them (a write to a
 * subresource changes nothing the store keeps); the manager is `fieldManager`, else the first word of the
 * User-Agent, as the API server names it.
 */
function recorded(x: ObjectRequest, current: KubeObject, obj: KubeObject): KubeObject {
  if (!x.store.managedFields || x.route.subresource !== undefined) return obj;
  const agent = (x.req.headers["user-agent"] ?? "unknown").split("/")[0] || "unknown";
  return recordUpdate(current, obj, {
    manager: x.url.searchParams.get("fieldManager") || agent,
    apiVersion: `${x.resource.group}/${x.resource.version}`,
    now: new Date(),
  });
}

/** Serves one resource request by its method: list, watch, get, create, update, patch or delete. */
export async function handleObject(x: ObjectRequest): Promise<void> {
  const ns = x.resource.namespaced ? namespaceOf(x) : "";
  const { name, subresource } = x.route;
  const sub = x.resource.subresources.find((s) => s.name === subresource);
  if (subresource !== undefined && !sub)
    throw new ApiError("NotFound", "the server could not find the requested resource");
  const method = x.req.method ?? "GET";
  const verb = ({ GET: "get", PUT: "update", PATCH: "patch" } as Record<string, string>)[method];
  if (sub && name !== undefined && !sub.verbs.includes(verb ?? method))
    throw new ApiError(
      "MethodNotAllowed",
      `${method} is not allowed on ${x.resource.resource}/${name}/${subresource}: it serves ${sub.verbs.join(", ")}${sub.why ? ` (${sub.why})` : ""}`,
    );
  if (name === undefined) {
    if (method === "GET") return list(x, ns);
    if (method !== "POST" || !x.store.create)
      throw new ApiError("MethodNotAllowed", `${method} is not allowed on ${x.resource.resource}`);
    const obj = recorded(x, {}, checkObject(x, validateFields(x, parseJsonBody(x.body)), undefined));
    checkCreate(x.resource, obj, String(obj.metadata?.name ?? ""));
    return answer(x, await x.store.create(x.caller, ns, obj, dryRunOf(x)), 201);
  }
  if (method === "GET") return answer(x, await x.store.get(x.caller, ns, name));
  if (method === "PUT" || method === "PATCH") return update(x, ns, name);
  if (method === "DELETE" && x.store.delete && subresource === undefined) return remove(x, ns, name);
  throw new ApiError("MethodNotAllowed", `${method} is not allowed on ${x.resource.resource}/${name}`);
}

/**
 * DELETE, with its DeleteOptions (the body kubectl sends): `dryRun` (kubectl delete --dry-run=server sends
 * it there, not in the query) and `preconditions` (a resourceVersion or uid that must still be the object's).
 */
async function remove(x: ObjectRequest, ns: string, name: string): Promise<void> {
  const text = x.body.trim();
  type DeleteOptions = { dryRun?: unknown; preconditions?: { resourceVersion?: unknown; uid?: unknown } };
  const options = (text === "" ? {} : (parseJsonBody(text, "the DeleteOptions body") ?? {})) as DeleteOptions;
  const dryRun = dryRunOf(x, Array.isArray(options.dryRun) ? options.dryRun : []);
  const pre = options.preconditions;
  if (pre?.resourceVersion !== undefined || pre?.uid !== undefined) {
    const current = await x.store.get(x.caller, ns, name);
    if (
      (pre.resourceVersion !== undefined && pre.resourceVersion !== rvOf(current)) ||
      (pre.uid !== undefined && pre.uid !== current.metadata?.uid)
    )
      throw conflict(x.resource.resource, x.resource.group, name, "the object's precondition failed");
  }
  const gone = await (x.store.delete as NonNullable<ResourceStore["delete"]>)(x.caller, ns, name, dryRun);
  // finalizers hold it: the object is answered as it now is, marked for deletion (the API server's 200)
  const finalizers = gone.metadata?.finalizers;
  if (gone.metadata?.deletionTimestamp && Array.isArray(finalizers) && finalizers.length > 0)
    return send(x.res, 200, gone);
  const uid = gone.metadata?.uid;
  send(
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
