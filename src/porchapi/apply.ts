import { isDeepStrictEqual } from "node:util";
import { parse } from "yaml";
import { MAX_BODY_DEPTH, tooDeep, yamlFlowDepth } from "./intake.js";
import type { KubeObject } from "./resources.js";
import { ApiError } from "./status.js";

/**
 * Server-side apply (`kubectl apply --server-side`, `application/apply-patch+yaml`), for the fields of
 * this API: each field manager owns the fields its last apply set. An apply sets the fields it names,
 * removes those its manager set before and no longer names (unless another manager also owns them),
 * and is refused with 409 Conflict, a cause per field, where it would change a value another manager
 * set — unless `force=true`, which takes the field over. Maps are merged key by key; lists are atomic
 * (Porch's kinds have no list merge keys), but for the sets of ObjectMeta (`metadata.finalizers`,
 * `+listType=set` there), whose every value is a field of its own, `v:"VALUE"` as the API server names it:
 * a controller that applies its finalizer away takes only its own, never another's.
 *
 * Where ownership is kept depends on the store (`Ownership`): in `metadata.managedFields`, as the API
 * server keeps it (one entry per manager and operation: manager, operation Apply or Update, apiVersion,
 * time, fieldsType FieldsV1, fieldsV1), for a store that keeps that field with the object (the variant
 * files); else in the annotation MANAGED_FIELDS (JSON: manager → field paths), a revision's own annotation
 * kept in git as its labels are, where only applies own fields. With managedFields, an update or patch
 * records an Update entry for its field manager holding the fields it changed, taken from their other
 * owners, as the API server records it (recordUpdate).
 */
const MANAGED_FIELDS = "porchlight.dev/managed-fields";

/** Where a store keeps who owns which field. */
type Ownership = "managedFields" | "annotation";

type Path = readonly string[];

/** One manager's fields, as an entry of `metadata.managedFields`. */
interface Entry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time: string;
  fields: Path[];
  /** Entries read as they were written keep their other keys (subresource…). */
  rest?: Record<string, unknown>;
}

/** The fields that name the object or that the server sets, rather than its content: never owned. */
const IDENTITY = new Set([
  "apiVersion",
  "kind",
  "metadata.name",
  "metadata.namespace",
  "metadata.resourceVersion",
  "metadata.uid",
  "metadata.managedFields",
  "metadata.creationTimestamp",
  "metadata.deletionTimestamp",
  "metadata.deletionGracePeriodSeconds",
  "metadata.generation",
  "metadata.selfLink",
  "status",
]);

/**
 * The lists that are sets of scalars (ObjectMeta's `+listType=set`): each value is owned on its own, a
 * field `v:<its JSON>` below the list, as FieldsV1 writes it.
 */
const SET_LISTS = new Set(["metadata.finalizers"]);
const isSetList = (at: Path) => SET_LISTS.has(at.join("."));
const setItem = (value: unknown) => `v:${JSON.stringify(value)}`;
const isSetItem = (k: string) => k.startsWith("v:");

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Kubernetes' time of a managedFields entry: RFC 3339 to the second. */
const timeOf = (now: Date) => `${now.toISOString().slice(0, 19)}Z`;

/** The body of an apply: YAML (JSON is YAML), one object. */
export function parseApplied(text: string): unknown {
  // refused before the parser, which recurses per level, walks it (100,000 brackets overflowed its stack)
  if (yamlFlowDepth(text) > MAX_BODY_DEPTH) throw tooDeep("the apply configuration");
  try {
    return parse(text);
  } catch (e) {
    throw new ApiError("BadRequest", `the apply configuration is not YAML: ${(e as Error).message}`);
  }
}

/** The leaf fields an applied configuration sets: maps walked key by key, lists and scalars whole. */
function leaves(v: unknown, at: string[] = []): Path[] {
  if (IDENTITY.has(at.join("."))) return [];
  if (isSetList(at) && Array.isArray(v)) return [...new Set(v.map(setItem))].map((k) => [...at, k]);
  if (!isMap(v) || (Object.keys(v).length === 0 && at.length > 0)) return at.length > 0 ? [at] : [];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k]));
}

const key = (p: Path) => JSON.stringify(p);
/** A field path as the API server names it in a conflict: `.metadata.labels.team`. */
const shown = (p: Path) => `.${p.join(".")}`;

function valueAt(obj: unknown, p: Path): unknown {
  let at = obj;
  for (const k of p) {
    if (Array.isArray(at) && isSetItem(k)) at = at.find((x) => setItem(x) === k);
    else at = isMap(at) ? at[k] : undefined;
  }
  return at;
}

function setAt(obj: Record<string, unknown>, p: Path, value: unknown): void {
  const last = p[p.length - 1] as string;
  if (isSetItem(last)) {
    // a value of a set: added where it is not there yet, the others kept in their order
    const list = valueAt(obj, p.slice(0, -1));
    if (Array.isArray(list)) {
      if (!list.some((x) => setItem(x) === last)) list.push(structuredClone(value));
    } else setAt(obj, p.slice(0, -1), [value]);
    return;
  }
  let at = obj;
  for (const k of p.slice(0, -1)) {
    if (!isMap(at[k])) at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  at[p[p.length - 1] as string] = structuredClone(value);
}

function removeAt(obj: Record<string, unknown>, p: Path): void {
  const last = p[p.length - 1] as string;
  const parent = valueAt(obj, p.slice(0, -1));
  if (Array.isArray(parent) && isSetItem(last)) {
    // one value of a set goes; the set with it when it was the last
    const left = parent.filter((x) => setItem(x) !== last);
    if (left.length > 0) setAt(obj, p.slice(0, -1), left);
    else removeAt(obj, p.slice(0, -1));
  } else if (isMap(parent)) delete parent[last];
}

/** FieldsV1 (`{"f:spec":{"f:upstream":{}}}`) of leaf paths, and back. */
function toFieldsV1(paths: readonly Path[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of paths) {
    let at = out;
    for (const k of p) {
      const f = isSetItem(k) ? k : `f:${k}`;
      if (!isMap(at[f])) at[f] = {};
      at = at[f] as Record<string, unknown>;
    }
  }
  return out;
}

function fromFieldsV1(v: unknown, at: string[] = []): Path[] {
  if (!isMap(v)) return [];
  const keys = Object.keys(v);
  // a set's values each (an entry that owned the set whole, written before sets were, owns none of them)
  if (isSetList(at)) return keys.filter(isSetItem).map((k) => [...at, k]);
  // a set itself (`.`), an empty set, or list items (`k:`, `v:`, `i:`: the list is atomic here) own the field
  if (at.length > 0 && (keys.length === 0 || keys.some((k) => k === "." || !k.startsWith("f:")))) return [at];
  return keys.flatMap((k) => (k.startsWith("f:") ? fromFieldsV1(v[k], [...at, k.slice(2)]) : []));
}

function entriesOf(obj: KubeObject | undefined, ownership: Ownership, apiVersion: string): Entry[] {
  if (ownership === "managedFields") {
    const list = obj?.metadata?.managedFields;
    if (!Array.isArray(list)) return [];
    return list.flatMap((e): Entry[] => {
      if (!isMap(e) || typeof e.manager !== "string") return [];
      const { manager, operation, apiVersion: v, time, fieldsV1, ...rest } = e;
      return [
        {
          manager,
          operation: operation === "Apply" ? "Apply" : "Update",
          apiVersion: typeof v === "string" ? v : apiVersion,
          time: typeof time === "string" ? time : "",
          fields: fromFieldsV1(fieldsV1),
          ...(Object.keys(rest).length > 0 ? { rest } : {}),
        },
      ];
    });
  }
  const text = (obj?.metadata?.annotations as Record<string, unknown> | undefined)?.[MANAGED_FIELDS];
  if (typeof text !== "string") return [];
  try {
    const m = JSON.parse(text) as unknown;
    if (!isMap(m)) return [];
    return Object.entries(m).map(([manager, fields]) => ({
      manager,
      operation: "Apply" as const,
      apiVersion,
      time: "",
      fields: Array.isArray(fields) ? (fields as Path[]) : [],
    }));
  } catch {
    return [];
  }
}

/** The entries written back where the store keeps them. */
function keepEntries(next: Record<string, unknown>, entries: readonly Entry[], ownership: Ownership): void {
  const live = entries.filter((e) => e.fields.length > 0);
  if (ownership === "annotation") {
    const kept: Record<string, Path[]> = {};
    for (const e of live) if (e.operation === "Apply") kept[e.manager] = e.fields;
    setAt(next, ["metadata", "annotations", MANAGED_FIELDS], JSON.stringify(kept));
    return;
  }
  const metadata = isMap(next.metadata) ? next.metadata : {};
  next.metadata = {
    ...metadata,
    managedFields: live.map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      ...e.rest,
      fieldsType: "FieldsV1",
      fieldsV1: toFieldsV1(e.fields),
    })),
  };
}

/** What one apply asks: who applies, whether it takes conflicting fields over, and for which object. */
export interface ApplyRequest {
  manager: string | null;
  force: boolean;
  apiVersion: string;
  resource: string;
  group: string;
  name: string;
  /** Where the store keeps ownership. */
  ownership: Ownership;
  /** The time an entry of managedFields records. */
  now: Date;
}

/** The object an apply of `applied` by `req.manager` makes of `current` (undefined: a new object). */
export function serverSideApply(
  current: KubeObject | undefined,
  applied: unknown,
  req: ApplyRequest,
): KubeObject {
  if (!req.manager)
    throw new ApiError(
      "BadRequest",
      "fieldManager is required for apply requests (kubectl apply --server-side sends --field-manager, default kubectl)",
    );
  if (!isMap(applied)) throw new ApiError("BadRequest", "the apply configuration is not an object");
  const manager = req.manager;
  const entries = entriesOf(current, req.ownership, req.apiVersion);
  const own = (e: Entry) => e.manager === manager && e.operation === "Apply";
  const mine = entries.find(own);
  const fields = leaves(applied);
  const owners = (p: Path) => entries.filter((e) => !own(e) && e.fields.some((q) => key(q) === key(p)));
  const conflicts = fields.flatMap((p) =>
    current !== undefined && !isDeepStrictEqual(valueAt(current, p), valueAt(applied, p))
      ? owners(p).map((e) => ({ field: shown(p), manager: e.manager, path: p, entry: e }))
      : [],
  );
  if (conflicts.length > 0 && !req.force) throw applyConflict(conflicts, req);
  const next = structuredClone(current ?? {}) as Record<string, unknown>;
  const now = new Set(fields.map(key));
  for (const p of mine?.fields ?? []) if (!now.has(key(p)) && owners(p).length === 0) removeAt(next, p);
  for (const p of fields) setAt(next, p, valueAt(applied, p));
  for (const k of ["apiVersion", "kind"]) if (applied[k] !== undefined) next[k] = applied[k];
  const metadata = isMap(next.metadata) ? next.metadata : {};
  next.metadata = { ...metadata, name: req.name };
  // an apply that changes nothing (the same fields, the same values) leaves the object as it was, its
  // entry's time too: a GitOps agent applying on every sync makes no new version
  if (
    mine !== undefined &&
    mine.apiVersion === req.apiVersion &&
    isDeepStrictEqual(mine.fields.map(key).sort(), [...now].sort()) &&
    isDeepStrictEqual(withoutOwnership(next, req.ownership), withoutOwnership(current, req.ownership))
  )
    return structuredClone(current) as KubeObject;
  // forced: the conflicting fields are taken over; a field both set to the same value stays shared
  const kept = entries.map((e) =>
    own(e)
      ? { ...e, fields, apiVersion: req.apiVersion, time: timeOf(req.now) }
      : {
          ...e,
          fields: e.fields.filter((q) => !conflicts.some((c) => c.entry === e && key(c.path) === key(q))),
        },
  );
  if (!mine)
    kept.push({ manager, operation: "Apply", apiVersion: req.apiVersion, time: timeOf(req.now), fields });
  keepEntries(next, kept, req.ownership);
  return next as KubeObject;
}

/** An object without what records its fields' managers (to tell whether an apply changed anything else). */
function withoutOwnership(obj: unknown, ownership: Ownership): unknown {
  if (!isMap(obj) || !isMap(obj.metadata)) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  if (ownership === "annotation" && isMap(metadata.annotations)) {
    const { [MANAGED_FIELDS]: __, ...annotations } = metadata.annotations;
    return { ...obj, metadata: { ...metadata, annotations } };
  }
  return { ...obj, metadata };
}

/**
 * An update's or a patch's managedFields (ownership kept there only): the leaf fields whose value it
 * changed become its manager's Update entry (added to the one it has), taken from every other entry, and
 * a field it removed is nobody's; an update that changes nothing records nothing. As the API server, the
 * manager is `fieldManager`, else the first word of the client's User-Agent.
 */
export function recordUpdate(
  current: KubeObject,
  next: KubeObject,
  req: { manager: string; apiVersion: string; now: Date },
): KubeObject {
  const entries = entriesOf(current, "managedFields", req.apiVersion);
  const changed = [
    ...leaves(next).filter((p) => !isDeepStrictEqual(valueAt(current, p), valueAt(next, p))),
    ...leaves(current).filter((p) => valueAt(next, p) === undefined),
  ];
  if (changed.length === 0) {
    const metadata = isMap(next.metadata) ? next.metadata : {};
    return { ...next, metadata: { ...metadata, managedFields: current.metadata?.managedFields } };
  }
  const gone = (p: Path) => valueAt(next, p) === undefined;
  const touched = new Set(changed.map(key));
  const mine = (e: Entry) => e.manager === req.manager && e.operation === "Update";
  const kept = entries.map((e) => ({
    ...e,
    fields: e.fields.filter((q) => !touched.has(key(q)) && !gone(q)),
  }));
  const set = changed.filter((p) => !gone(p));
  const at = kept.findIndex(mine);
  const before = entries.find(mine)?.fields.filter((q) => !touched.has(key(q)) && !gone(q)) ?? [];
  const entry: Entry = {
    manager: req.manager,
    operation: "Update",
    apiVersion: req.apiVersion,
    time: timeOf(req.now),
    fields: [...before, ...set],
  };
  if (at >= 0) kept[at] = entry;
  else kept.push(entry);
  const out = structuredClone(next) as Record<string, unknown>;
  keepEntries(out, kept, "managedFields");
  return out as KubeObject;
}

function applyConflict(conflicts: { field: string; manager: string }[], req: ApplyRequest): ApiError {
  const n = conflicts.length;
  const using = (c: { manager: string }) => `conflict with "${c.manager}" using ${req.apiVersion}`;
  return new ApiError(
    "Conflict",
    `Apply failed with ${n} conflict${n === 1 ? "" : "s"}: ${conflicts.map((c) => `${using(c)}: ${c.field}`).join("\n")}`,
    {
      name: req.name,
      group: req.group,
      kind: req.resource,
      causes: conflicts.map((c) => ({ reason: "FieldManagerConflict", message: using(c), field: c.field })),
    },
  );
}
