import type { Document } from "yaml";
import { ANNOTATION } from "../../../kpt/annotations.js";
import { getAnnotation, resourceHead } from "../../../kpt/resource.js";
import { gvkOfParts } from "./catalog-fnconfig.js";
import { knownNamespaceScope } from "./catalog-scope.js";

/**
 * What kustomize's resource map (api v0.7.x–v0.8.x, under set-labels v0.1.x and set-annotations
 * v0.1.x) does with the items before any transformer runs.
 */

/** kunstruct (kustomize api v0.7.x) skips every resource that carries the local-config annotation, whatever its value. */
export function withoutLocalConfig(items: readonly Document[]): Document[] {
  return items.filter((doc) => getAnnotation(doc, ANNOTATION.localConfig) === undefined);
}

/**
 * The message of resWrangler.Append for the first resource whose id another one already has (same
 * group, version, kind and name, in the same effective namespace: "" and "default" are one, a
 * cluster-scoped kind has none), or undefined.
 */
export function duplicateResourceId(items: readonly Document[]): string | undefined {
  // By name first (nearly every resource's is its own), the rest of the id compared only where names
  // meet: no key text made and hashed per resource.
  const byName = new Map<string, SeenId>();
  for (let i = 0; i < items.length; i++) {
    const { apiVersion, kind, namespace, name } = resourceHead(items[i]!); // i < items.length
    const id: SeenId = {
      apiVersion,
      kind,
      effective: effectiveNamespace(apiVersion, kind, namespace),
      next: undefined,
    };
    const first = byName.get(name);
    if (first === undefined) {
      byName.set(name, id);
      continue;
    }
    let seen: SeenId | undefined = first;
    let last = first;
    for (; seen !== undefined; seen = seen.next) {
      if (sameId(seen, id)) {
        const { group, version } = gvkOfParts(apiVersion, kind);
        const gvk = [group || "~G", version || "~V", kind || "~K"].join("_");
        return `may not add resource with an already registered id: ${gvk}|${namespace || "~X"}|${name || "~N"}`;
      }
      last = seen;
    }
    last.next = id;
  }
  return undefined;
}

/** The id of a resource seen by duplicateResourceId, besides its name; the next seen of the same name. */
interface SeenId {
  apiVersion: string;
  kind: string;
  effective: string;
  next: SeenId | undefined;
}

/** Two ids of one name are one (resourceIdKey's parts: group, version, kind, effective namespace). */
function sameId(a: SeenId, b: SeenId): boolean {
  if (a.kind !== b.kind || a.effective !== b.effective) return false;
  if (a.apiVersion === b.apiVersion) return true;
  const x = gvkOfParts(a.apiVersion, a.kind);
  const y = gvkOfParts(b.apiVersion, b.kind);
  return x.group === y.group && x.version === y.version;
}

/** The namespace kustomize's resource map tells a resource's id by ("" and "default" are one; none if cluster-scoped). */
function effectiveNamespace(apiVersion: string, kind: string, namespace: string): string {
  return knownNamespaceScope(apiVersion, kind) === false
    ? "_non_namespaceable_"
    : namespace === "" || namespace === "default"
      ? "default"
      : namespace;
}

/** A resource's id as kustomize's resource map tells them apart (see duplicateResourceId), as one string. */
export function resourceIdKey(doc: Document): string {
  const { apiVersion, kind, namespace, name } = resourceHead(doc);
  const effective = effectiveNamespace(apiVersion, kind, namespace);
  const { group, version } = gvkOfParts(apiVersion, kind);
  // Each part's length first: no two ids make one key.
  return `${group.length}:${group}${version.length}:${version}${kind.length}:${kind}${name.length}:${name}${effective}`;
}
