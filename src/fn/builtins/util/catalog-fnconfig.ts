import { type Document, isMap, isScalar } from "yaml";
import { apiVersionOf, kindOf } from "../../../kpt/resource.js";

/**
 * Reading a catalog function's config: a `ConfigMap` (kpt's `configMap:` in a Kptfile becomes one) or a
 * typed object such as `fn.kpt.dev/v1alpha1 SetNamespace`.
 */

/** True when the config is absent or an empty mapping (the SDK's `KubeObject.IsEmpty`). */
export function isEmptyConfig(config: Document | undefined): boolean {
  if (!config) return true;
  const contents = config.contents;
  if (contents === null || contents === undefined) return true;
  if (isScalar(contents)) return contents.value === null || contents.value === undefined;
  return isMap(contents) && contents.items.length === 0;
}

/** The SDK's `IsGVK(group, version, kind)`: an exact apiVersion and kind match. */
export function isGVK(doc: Document, apiVersion: string, kind: string): boolean {
  return apiVersionOf(doc) === apiVersion && kindOf(doc) === kind;
}

export function isConfigMap(doc: Document): boolean {
  return isGVK(doc, "v1", "ConfigMap");
}

/** `data` of a ConfigMap as strings, in document order; non-scalar values are skipped. */
export function configMapData(doc: Document): Map<string, string> {
  return stringEntries(doc.get("data", true));
}

/** The string entries of a mapping node (keys and scalar values stringified, null as ""). */
export function stringEntries(node: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isMap(node)) return out;
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (key === null || key === undefined) continue;
    const value = pair.value;
    if (value === null || value === undefined) {
      out.set(String(key), "");
    } else if (isScalar(value)) {
      out.set(String(key), value.value === null || value.value === undefined ? "" : String(value.value));
    }
  }
  return out;
}

/** A top-level string field of a typed config ("" when absent). */
export function topString(doc: Document, key: string): string {
  const node = doc.get(key, true);
  if (!isScalar(node) || node.value === null || node.value === undefined) return "";
  return String(node.value);
}

/** Group and version of an apiVersion (`apps/v1` → apps, v1; `v1` → "", v1). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The newer SDK's `IsGVK(group, version, kind)` (and kustomize's field-spec selection): only the given
 * parts are compared, an empty part matches anything.
 */
export function matchesGVK(doc: Document, group: string, version: string, kind: string): boolean {
  return gvkMatches(gvkOf(doc), group, version, kind);
}

/** A resource's group, version and kind, read once for repeated matching. */
export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export function gvkOf(doc: Document): Gvk {
  return gvkOfParts(apiVersionOf(doc), kindOf(doc));
}

/** gvkOf of an apiVersion and kind already read (a resource's head). */
export function gvkOfParts(apiVersion: string, kind: string): Gvk {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion, kind }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

/** `matchesGVK` over an already read Gvk. */
export function gvkMatches(own: Gvk, group: string, version: string, kind: string): boolean {
  if (own.kind !== "" && kind !== "" && own.kind !== kind) return false;
  if (own.group !== "" && group !== "" && own.group !== group) return false;
  if (own.version !== "" && version !== "" && own.version !== version) return false;
  return true;
}
