import { PorchError, type PorchErrorCause } from "./errors.js";
import type { OwnerReference } from "./registrations.js";

/**
 * A PackageRevision's `metadata.ownerReferences` as the API server takes them: each names its owner's
 * apiVersion, kind, name and uid (controllers find what they own by uid), at most one is the controller,
 * and no uid twice. Kept in git with the revision's labels and annotations (registrations.ts
 * openRevisionMetadata), so an adopt or orphan (an update adding or removing one) holds on a Published
 * revision too, as it holds in Porch.
 */
export function ownerReferencesOf(name: string, given: unknown): OwnerReference[] {
  if (given === undefined || given === null) return [];
  const causes: PorchErrorCause[] = [];
  const cause = (field: string, message: string) =>
    causes.push({ reason: "FieldValueInvalid", field: `metadata.ownerReferences${field}`, message });
  if (!Array.isArray(given)) {
    cause("", "Invalid value: a list of owner references");
    throw invalid(name, causes);
  }
  const out: OwnerReference[] = [];
  const uids = new Set<string>();
  given.forEach((ref: unknown, i) => {
    const at = `[${i}]`;
    if (typeof ref !== "object" || ref === null || Array.isArray(ref)) {
      cause(at, "Invalid value: an owner reference is an object (apiVersion, kind, name, uid)");
      return;
    }
    const r = ref as Record<string, unknown>;
    for (const key of ["apiVersion", "kind", "name", "uid"] as const)
      if (typeof r[key] !== "string" || r[key] === "")
        cause(`${at}.${key}`, `Invalid value: "": ${key} must not be empty`);
    for (const key of ["controller", "blockOwnerDeletion"] as const)
      if (r[key] !== undefined && typeof r[key] !== "boolean")
        cause(`${at}.${key}`, `Invalid value: ${JSON.stringify(r[key])}: true or false`);
    const uid = String(r.uid ?? "");
    if (uid !== "" && uids.has(uid)) cause(`${at}.uid`, `Duplicate value: "${uid}"`);
    uids.add(uid);
    out.push({
      apiVersion: String(r.apiVersion),
      kind: String(r.kind),
      name: String(r.name),
      uid,
      ...(typeof r.controller === "boolean" ? { controller: r.controller } : {}),
      ...(typeof r.blockOwnerDeletion === "boolean" ? { blockOwnerDeletion: r.blockOwnerDeletion } : {}),
    });
  });
  const controllers = out.filter((r) => r.controller === true);
  if (controllers.length > 1)
    cause(
      "",
      `Invalid value: Only one reference can have Controller set to true. Found "true" in references for ${controllers.map((c) => `${c.kind}/${c.name}`).join(" and ")}`,
    );
  if (causes.length > 0) throw invalid(name, causes);
  return out;
}

function invalid(name: string, causes: PorchErrorCause[]): PorchError {
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  return new PorchError(
    "invalid",
    `PackageRevision.porch.kpt.dev "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`}`,
    undefined,
    undefined,
    { causes },
  );
}

/** Whether two lists of owner references are the same, in the same order. */
export function sameOwners(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
