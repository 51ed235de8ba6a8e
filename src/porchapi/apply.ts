import { isDeepStrictEqual } from "node:util";
import { parse } from "yaml";
import type { KubeObject } from "./resources.js";
import { ApiError } from "./status.js";

/**
 * Server-side apply (`kubectl apply --server-side`, `application/apply-patch+yaml`), for the fields of
 * this API: each field manager owns the fields its last apply set. An apply sets the fields it names,
 * removes those its manager set before and no longer names (unless another manager also owns them),
 * and is refused with 409 Conflict, a cause per field, where it would change a value another manager
 * set — unless `force=true`, which takes the field over. Maps are merged key by key; lists are atomic
 * (Porch's kinds have no list merge keys).
 *
 * Where porchlight keeps ownership: in the annotation MANAGED_FIELDS (JSON: manager → field paths), a
 * revision's own annotation kept in git as its labels are, not in `metadata.managedFields`. Only applies
 * own fields: an update or patch (kubectl edit, label, client-side apply) changes values but not who
 * owns them, so it never conflicts and a later apply by the owner sets its values again.
 */
const MANAGED_FIELDS = "porchlight.dev/managed-fields";

type Path = readonly string[];
type Managed = Record<string, Path[]>;

/** The fields that name the object rather than set its content: never owned. */
const IDENTITY = new Set([
  "apiVersion",
  "kind",
  "metadata.name",
  "metadata.namespace",
  "metadata.resourceVersion",
  "metadata.uid",
  "metadata.managedFields",
  "status",
]);

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The body of an apply: YAML (JSON is YAML), one object. */
export function parseApplied(text: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    throw new ApiError("BadRequest", `the apply configuration is not YAML: ${(e as Error).message}`);
  }
}

/** The leaf fields an applied configuration sets: maps walked key by key, lists and scalars whole. */
function leaves(v: unknown, at: string[] = []): Path[] {
  if (IDENTITY.has(at.join("."))) return [];
  if (!isMap(v) || (Object.keys(v).length === 0 && at.length > 0)) return at.length > 0 ? [at] : [];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k]));
}

const key = (p: Path) => JSON.stringify(p);
/** A field path as the API server names it in a conflict: `.metadata.labels.team`. */
const shown = (p: Path) => `.${p.join(".")}`;

function valueAt(obj: unknown, p: Path): unknown {
  let at = obj;
  for (const k of p) at = isMap(at) ? at[k] : undefined;
  return at;
}

function setAt(obj: Record<string, unknown>, p: Path, value: unknown): void {
  let at = obj;
  for (const k of p.slice(0, -1)) {
    if (!isMap(at[k])) at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  at[p[p.length - 1] as string] = structuredClone(value);
}

function removeAt(obj: Record<string, unknown>, p: Path): void {
  const parent = valueAt(obj, p.slice(0, -1));
  if (isMap(parent)) delete parent[p[p.length - 1] as string];
}

function managedOf(obj: KubeObject | undefined): Managed {
  const text = (obj?.metadata?.annotations as Record<string, unknown> | undefined)?.[MANAGED_FIELDS];
  if (typeof text !== "string") return {};
  try {
    const m = JSON.parse(text) as unknown;
    return isMap(m) ? (m as Managed) : {};
  } catch {
    return {};
  }
}

/** What one apply asks: who applies, whether it takes conflicting fields over, and for which object. */
export interface ApplyRequest {
  manager: string | null;
  force: boolean;
  apiVersion: string;
  resource: string;
  group: string;
  name: string;
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
  const managed = managedOf(current);
  const fields = leaves(applied);
  const owners = (p: Path) =>
    Object.entries(managed)
      .filter(([m, paths]) => m !== manager && paths.some((q) => key(q) === key(p)))
      .map(([m]) => m);
  const conflicts = fields.flatMap((p) =>
    current !== undefined && !isDeepStrictEqual(valueAt(current, p), valueAt(applied, p))
      ? owners(p).map((m) => ({ field: shown(p), manager: m }))
      : [],
  );
  if (conflicts.length > 0 && !req.force) throw applyConflict(conflicts, req);
  const next = structuredClone(current ?? {}) as Record<string, unknown>;
  const now = new Set(fields.map(key));
  for (const p of managed[manager] ?? []) if (!now.has(key(p)) && owners(p).length === 0) removeAt(next, p);
  for (const p of fields) setAt(next, p, valueAt(applied, p));
  for (const k of ["apiVersion", "kind"]) if (applied[k] !== undefined) next[k] = applied[k];
  const metadata = isMap(next.metadata) ? next.metadata : {};
  next.metadata = { ...metadata, name: req.name };
  const taken = new Set(conflicts.map((c) => `${c.manager}\n${c.field}`));
  const kept: Managed = {};
  for (const [m, paths] of Object.entries(managed)) {
    if (m === manager) continue;
    // forced: the conflicting fields are taken over; a field both set to the same value stays shared
    const left = paths.filter((q) => !taken.has(`${m}\n${shown(q)}`));
    if (left.length > 0) kept[m] = left;
  }
  kept[manager] = fields;
  setAt(next, ["metadata", "annotations", MANAGED_FIELDS], JSON.stringify(kept));
  return next as KubeObject;
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
