import { revisionName } from "../../lifecycle/index.js";
import { LATEST_LABEL } from "../../porch/objects.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";

/**
 * PackageRevision's strategy, as Porch's registry has one: what a create and an update may change and
 * how the object they answer looks, with no GitHub in it (the storage, revisions.ts and writes.ts, reads
 * and writes).
 */

/** What porchlight computes on every read (where the revision lives): not the revision's own annotations. */
const COMPUTED_ANNOTATIONS = new Set([
  "porchlight.dev/ref",
  "porchlight.dev/commit",
  "porchlight.dev/pull-request",
]);

export type Fields = Record<string, unknown>;
export const fieldsOf = (v: unknown): Fields => (typeof v === "object" && v !== null ? (v as Fields) : {});
const textMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(fieldsOf(v)).map(([k, x]) => [k, String(x)]));

/** The labels and annotations an object sets that are the revision's own (kept in git), not computed. */
function ownMetadata(obj: KubeObject): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  const { [LATEST_LABEL]: _, ...labels } = textMap(obj.metadata?.labels);
  const annotations = Object.fromEntries(
    Object.entries(textMap(obj.metadata?.annotations)).filter(([k]) => !COMPUTED_ANNOTATIONS.has(k)),
  );
  return { labels, annotations };
}

const same = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The revision's own labels and annotations `obj` sets, where they differ from `current`'s. */
export function changedMetadata(
  obj: KubeObject,
  current?: KubeObject,
): { labels: Record<string, string>; annotations: Record<string, string> } | undefined {
  const want = ownMetadata(obj);
  const was = current ? ownMetadata(current) : { labels: {}, annotations: {} };
  return same(want.labels, was.labels) && same(want.annotations, was.annotations) ? undefined : want;
}

/** The spec fields a revision keeps for life: a change to one is Invalid, as Porch's. */
const IMMUTABLE = ["packageName", "workspaceName", "repository", "revision"] as const;

export function checkImmutable(name: string, spec: Fields, was: Fields): void {
  const causes = IMMUTABLE.filter((f) => spec[f] !== undefined && spec[f] !== was[f]).map((f) => ({
    reason: "FieldValueInvalid",
    field: `spec.${f}`,
    message: `field is immutable (it was ${JSON.stringify(was[f])})`,
  }));
  if (causes.length > 0)
    throw new ApiError(
      "Invalid",
      `PackageRevision.porch.kpt.dev "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}`,
      { name, group: "porch.kpt.dev", kind: "PackageRevision", causes },
    );
}

/** The engine's operation that moves a revision from one lifecycle to another. */
export type LifecycleMove = "propose" | "reject" | "approve" | "propose-delete";

/** The move an update asks for, as Porch's update allows it (publishing: through approval only), or none. */
export function lifecycleMove(
  name: string,
  from: unknown,
  to: unknown,
  approval: boolean,
): LifecycleMove | undefined {
  if (to === undefined || to === from) return undefined;
  if (from === "Draft" && to === "Proposed" && !approval) return "propose";
  if (from === "Proposed" && to === "Draft") return "reject";
  if (from === "Proposed" && to === "Published" && approval) return "approve";
  if (from === "Published" && to === "DeletionProposed" && !approval) return "propose-delete";
  if (from === "DeletionProposed" && to === "Published") return "reject";
  const how =
    to === "Published"
      ? "a proposal is published through the approval subresource (kubectl patch --subresource=approval)"
      : "Draft → Proposed, Proposed → Draft or (approval) Published, Published → DeletionProposed, DeletionProposed → Published";
  const message = `cannot change from ${String(from)} to ${String(to)}${approval ? " through approval" : ""}: ${how}`;
  throw new ApiError(
    "Invalid",
    `PackageRevision.porch.kpt.dev "${name}" is invalid: spec.lifecycle: ${message}`,
    {
      name,
      group: "porch.kpt.dev",
      kind: "PackageRevision",
      causes: [{ reason: "FieldValueInvalid", field: "spec.lifecycle", message }],
    },
  );
}

/** A dry run's answer to an update: `current` as the update would leave it (its own metadata, its lifecycle). */
export function updatedObject(obj: KubeObject, current: KubeObject): KubeObject {
  const { labels, annotations } = ownMetadata(obj);
  const latest = textMap(current.metadata?.labels)[LATEST_LABEL];
  const computed = Object.fromEntries(
    Object.entries(textMap(current.metadata?.annotations)).filter(([k]) => COMPUTED_ANNOTATIONS.has(k)),
  );
  const was = fieldsOf(current.spec);
  return {
    ...current,
    metadata: {
      ...current.metadata,
      labels: { ...labels, ...(latest === undefined ? {} : { [LATEST_LABEL]: latest }) },
      annotations: { ...annotations, ...computed },
    },
    spec: { ...was, lifecycle: fieldsOf(obj.spec).lifecycle ?? was.lifecycle },
  };
}

/** The name Porch gives a new revision: REPOSITORY.PACKAGE.WORKSPACE. */
export function newRevisionName(spec: Fields): string {
  return revisionName(String(spec.repository), {
    package: String(spec.packageName),
    workspace: String(spec.workspaceName),
  });
}
