import type { Document } from "yaml";
import { apiVersionOf, getAnnotation, kindOf, nameOf, namespaceOf } from "../../../kpt/resource.js";
import { knownNamespaceScope } from "./catalog-scope.js";

/**
 * Resource identities as kustomize's replacements select them (`resid.ResId`): group, version, kind,
 * name and namespace, where an empty selector field matches anything and namespaces compare by their
 * effective value ("" and "default" are the same; cluster-scoped kinds have none).
 */
export interface ResId {
  group: string;
  version: string;
  kind: string;
  name: string;
  namespace: string;
}

const NO_NAMESPACE_KIND = "_non_namespaceable_";
const DEFAULT_NAMESPACE = "default";

/** kustomize's `ParseGroupVersion`: `apps/v1` → apps, v1; `v1` → "", v1. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const PREVIOUS = {
  names: "internal.config.kubernetes.io/previousNames",
  namespaces: "internal.config.kubernetes.io/previousNamespaces",
  kinds: "internal.config.kubernetes.io/previousKinds",
} as const;

/** The resource's current id, then the ids it had before kustomize renamed it (kustomize's `MakeResIds`). */
export function resIdsOf(doc: Document): ResId[] {
  const { group, version } = parseGroupVersion(apiVersionOf(doc));
  const ids: ResId[] = [
    { group, version, kind: kindOf(doc), name: nameOf(doc), namespace: namespaceOf(doc) },
  ];
  const names = getAnnotation(doc, PREVIOUS.names);
  if (names === undefined) return ids;
  const prevNames = names.split(",");
  const prevNamespaces = (getAnnotation(doc, PREVIOUS.namespaces) ?? "").split(",");
  const prevKinds = (getAnnotation(doc, PREVIOUS.kinds) ?? "").split(",");
  if (prevNames.length !== prevNamespaces.length || prevNames.length !== prevKinds.length) {
    throw new Error(
      "number of previous names, number of previous namespaces, number of previous kinds not equal",
    );
  }
  prevNames.forEach((name, i) => {
    ids.push({ group, version, kind: prevKinds[i] ?? "", name, namespace: prevNamespaces[i] ?? "" });
  });
  return ids;
}

function effectiveNamespace(id: ResId): string {
  const apiVersion = id.group ? `${id.group}/${id.version}` : id.version;
  if (knownNamespaceScope(apiVersion, id.kind) === false) return NO_NAMESPACE_KIND;
  return id.namespace === "" ? DEFAULT_NAMESPACE : id.namespace;
}

/** kustomize's `ResId.IsSelectedBy`. */
export function isSelectedBy(id: ResId, selector: ResId): boolean {
  return (
    (selector.name === "" || selector.name === id.name) &&
    (selector.namespace === "" || effectiveNamespace(selector) === effectiveNamespace(id)) &&
    (selector.group === "" || selector.group === id.group) &&
    (selector.version === "" || selector.version === id.version) &&
    (selector.kind === "" || selector.kind === id.kind)
  );
}

export function isEmptyResId(id: ResId): boolean {
  return id.group === "" && id.version === "" && id.kind === "" && id.name === "" && id.namespace === "";
}

/** kustomize's `ResId.String()`: `Deployment.[noVer].[noGrp]/web.[noNs]`. */
export function formatResId(id: ResId): string {
  const gvk = [id.kind || "[noKind]", id.version || "[noVer]", id.group || "[noGrp]"].join(".");
  return `${gvk}/${id.name || "[noName]"}.${id.namespace || "[noNs]"}`;
}
