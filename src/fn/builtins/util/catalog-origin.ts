import { type Document, isScalar } from "yaml";

/** `metadata.namespace` as written, or undefined when the key is absent. */
export function declaredNamespace(doc: Document): string | undefined {
  const node = doc.getIn(["metadata", "namespace"], true);
  if (node === undefined) return undefined;
  if (!isScalar(node)) return undefined;
  return node.value === null || node.value === undefined ? "" : String(node.value);
}
