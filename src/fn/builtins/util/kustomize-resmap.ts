import type { Document } from "yaml";
import { ANNOTATION } from "../../../kpt/annotations.js";
import { getAnnotation, resourceHead } from "../../../kpt/resource.js";
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
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const key = resourceIdKey(items[i]!);
    if (seen.has(key)) {
      const { apiVersion, kind, namespace, name } = resourceHead(items[i]!);
      const slash = apiVersion.indexOf("/");
      const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
      const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
      const gvk = [group || "~G", version || "~V", kind || "~K"].join("_");
      return `may not add resource with an already registered id: ${gvk}|${namespace || "~X"}|${name || "~N"}`;
    }
    seen.add(key);
  }
  return undefined;
}

/** A resource's id as kustomize's resource map tells them apart (see duplicateResourceId), as one string. */
export function resourceIdKey(doc: Document): string {
  const { apiVersion, kind, namespace, name } = resourceHead(doc);
  const effective =
    knownNamespaceScope(apiVersion, kind) === false
      ? "_non_namespaceable_"
      : namespace === "" || namespace === "default"
        ? "default"
        : namespace;
  const slash = apiVersion.indexOf("/");
  const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  // Each part's length first: no two ids make one key.
  return `${group.length}:${group}${version.length}:${version}${kind.length}:${kind}${name.length}:${name}${effective}`;
}
