import { type Document, isScalar } from "yaml";
import { getAnnotation } from "../../../kpt/resource.js";

/** kpt's annotation naming the upstream resource a resource was cloned from: `group|Kind|namespace|name`. */
export const UPSTREAM_IDENTIFIER = "internal.kpt.dev/upstream-identifier";

/** The namespace the SDK gives cluster-scoped (or unknown-scoped) resources in an identifier. */
export const UNKNOWN_NAMESPACE = "~C";
export const DEFAULT_NAMESPACE = "default";

export interface OriginId {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** `metadata.namespace` as written, or undefined when the key is absent. */
export function declaredNamespace(doc: Document): string | undefined {
  const node = doc.getIn(["metadata", "namespace"], true);
  if (node === undefined) return undefined;
  if (!isScalar(node)) return undefined;
  return node.value === null || node.value === undefined ? "" : String(node.value);
}

/** The upstream origin kpt recorded on the resource, or undefined when it has none. */
export function upstreamOrigin(doc: Document): OriginId | undefined {
  const raw = getAnnotation(doc, UPSTREAM_IDENTIFIER);
  if (!raw) return undefined;
  const parts = raw.trim().split("|");
  if (parts.length < 4) return undefined;
  return { group: parts[0] ?? "", kind: parts[1] ?? "", namespace: parts[2] ?? "", name: parts[3] ?? "" };
}

export function formatOrigin(id: OriginId): string {
  return `${id.group}|${id.kind}|${id.namespace}|${id.name}`;
}
