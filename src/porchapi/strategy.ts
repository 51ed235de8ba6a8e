import type { ApiResource, KubeObject } from "./resources.js";
import { ApiError } from "./status.js";

/**
 * What Porch's API server checks of a PackageRevision write before its engine sees it (its resource
 * strategy, and the engine's optimistic lock), here at the API's door so that every store gets only
 * what Porch would let through:
 * - an update names the version it read (`metadata.resourceVersion`): Porch's engine refuses one that
 *   does not, for revisions and their resources alike; a patch carries the version of the object it
 *   was applied to;
 * - `kpt.dev/latest-revision` is Porch's own label: a create may not set it, an update not change it;
 * - a Published (or DeletionProposed) revision's spec is frozen: only its lifecycle moves, between
 *   Published and DeletionProposed.
 */
const LATEST = "kpt.dev/latest-revision";
const PUBLISHED = new Set(["Published", "DeletionProposed"]);
/** The kinds whose updates Porch's engine holds to the version read. */
const LOCKED = new Set(["PackageRevision", "PackageRevisionResources"]);

interface Cause {
  reason: string;
  field: string;
  message: string;
}

type Fields = Record<string, unknown>;
const fieldsOf = (v: unknown): Fields => (typeof v === "object" && v !== null ? (v as Fields) : {});
const labelOf = (o: KubeObject) => fieldsOf(o.metadata?.labels)[LATEST];

/** 422 Invalid in apimachinery's words: `Kind.group "name" is invalid: field: text`, or `[a, b]` for several. */
function invalid(resource: ApiResource, name: string, causes: Cause[]): ApiError {
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const all = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  return new ApiError("Invalid", `${resource.kind}.${resource.group} "${name}" is invalid: ${all}`, {
    name,
    group: resource.group,
    kind: resource.kind,
    causes,
  });
}

const forbiddenLabel = (verb: string): Cause => ({
  reason: "FieldValueForbidden",
  field: `metadata.labels.${LATEST}`,
  message: `Forbidden: label is managed by porch and cannot be ${verb} by users (porchlight puts it on each package's latest published revision)`,
});

/** A create of `obj`: refused where it sets Porch's own label. */
export function checkCreate(resource: ApiResource, obj: KubeObject, name: string): void {
  if (resource.kind === "PackageRevision" && labelOf(obj) !== undefined)
    throw invalid(resource, name, [forbiddenLabel("set")]);
}

/**
 * Go's zero values taken out (null, "", 0, false, empty lists and maps), recursively, with the keys
 * sorted: two specs are the same when these are, as Porch compares them (apimachinery's semantic
 * equality over Go structs, where a field left out and a field at its zero value are one).
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((v) => canonical(v) ?? null);
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, canonical(v)] as const)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value === null || value === "" || value === 0 || value === false ? undefined : value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** The spec fields `next` changes of a published revision's (its lifecycle aside, between published states). */
function frozenChanges(next: Fields, was: Fields): string[] {
  const keepsPublished = PUBLISHED.has(String(next.lifecycle));
  const keys = new Set([...Object.keys(next), ...Object.keys(was)]);
  return [...keys].filter((k) => !(k === "lifecycle" && keepsPublished) && !same(next[k], was[k])).sort();
}

/**
 * An update of `obj` over `current` (by PUT, a patch or server-side apply; `subresource` for the
 * approval), refused with 422 Invalid naming every field Porch refuses.
 */
export function checkUpdate(
  resource: ApiResource,
  obj: KubeObject,
  current: KubeObject,
  subresource: string | undefined,
): void {
  const name = String(current.metadata?.name ?? "");
  const causes: Cause[] = [];
  const rv = obj.metadata?.resourceVersion;
  if (LOCKED.has(resource.kind) && (rv === undefined || rv === null || rv === ""))
    causes.push({
      reason: "FieldValueInvalid",
      field: "metadata.resourceVersion",
      message: `Invalid value: "": resourceVersion must be specified for an update (send the object as read, with its resourceVersion: kubectl get -o yaml, then replace; or patch it, which needs none)`,
    });
  if (resource.kind === "PackageRevision" && subresource === undefined) {
    if ((labelOf(obj) ?? "") !== (labelOf(current) ?? "")) causes.push(forbiddenLabel("modified"));
    const was = fieldsOf(current.spec);
    const changed = PUBLISHED.has(String(was.lifecycle)) ? frozenChanges(fieldsOf(obj.spec), was) : [];
    if (changed.length > 0)
      causes.push({
        reason: "FieldValueInvalid",
        field: "spec",
        message: `Invalid value: ${changed.map((k) => `spec.${k}`).join(", ")}: spec can only update package with lifecycle value one of Draft,Proposed (this revision is ${String(was.lifecycle)}: only its lifecycle moves, between Published and DeletionProposed; to change the package, copy it to a new draft: porchctl rpkg copy)`,
      });
  }
  if (causes.length > 0) throw invalid(resource, name, causes);
}
