import { type Document, isMap, isScalar, isSeq, parseDocument, type Scalar, YAMLMap } from "yaml";
import { pairValue } from "../../../kpt/resource.js";
import { newScalar, readPair } from "../../../kpt/yaml/yaml-nodes.js";

/**
 * Walking and editing nested fields of a resource the way the catalog functions (and kustomize's field
 * specs) do: paths of mapping keys, `name[]` for "every element of the sequence `name`", missing maps
 * created on request. Nodes are edited in place so untouched text keeps its comments and quoting.
 */

/**
 * The node under `key`, as `map.get(key, true)` finds it (a null value is undefined), without the
 * `yaml` method's iterator: what the catalog builtins read of every resource goes through here.
 */
export function entryNode(map: YAMLMap, key: string): unknown {
  return pairValue(map.items, key) ?? undefined;
}

/** The mapping under `key`, or undefined when absent or not a mapping. */
export function childMap(map: YAMLMap | undefined, key: string): YAMLMap | undefined {
  if (!map) return undefined;
  const node = entryNode(map, key);
  return isMap(node) ? node : undefined;
}

/** The mappings in the sequence under `key` (non-mapping elements skipped). */
export function childMaps(map: YAMLMap | undefined, key: string): YAMLMap[] {
  if (!map) return [];
  const node = entryNode(map, key);
  if (!isSeq(node)) return [];
  return node.items.filter((item): item is YAMLMap => isMap(item));
}

/** The mapping at `path` (keys, no `[]`) below `map`, or undefined where one is missing or not a mapping. */
export function mapAt(map: YAMLMap | undefined, path: readonly string[]): YAMLMap | undefined {
  let node = map;
  for (let i = 0; node && i < path.length; i++) node = childMap(node, path[i]!); // i < path.length
  return node;
}

/** mapAt, missing mappings (or empty values) along the way made mappings (ensureChildMap). */
export function ensureMapAt(doc: Document, map: YAMLMap, path: readonly string[]): YAMLMap | undefined {
  let node: YAMLMap | undefined = map;
  for (let i = 0; node && i < path.length; i++) node = ensureChildMap(doc, node, path[i]!); // i < path.length
  return node;
}

/** The mapping under `key`, created (or replacing an empty value) when absent. */
export function ensureChildMap(_doc: Document, map: YAMLMap, key: string): YAMLMap | undefined {
  const node = entryNode(map, key);
  if (isMap(node)) return node;
  if (node === undefined || node === null || (isScalar(node) && (node.value === null || node.value === ""))) {
    const created = new YAMLMap();
    if (node === undefined) map.items.push(readPair(newScalar(key), created));
    else map.add(readPair(newScalar(key), created), true);
    return created;
  }
  return undefined;
}

/** The resource's top-level mapping, or undefined for a document that is not a mapping. */
export function rootMap(doc: Document): YAMLMap | undefined {
  return isMap(doc.contents) ? doc.contents : undefined;
}

/** A scalar entry's value as a string, or undefined when the key is absent or not a scalar. */
export function scalarEntry(map: YAMLMap, key: string): string | undefined {
  return entryText(entryNode(map, key));
}

/** scalarEntry of an entry's node already found (entryNode): its text, "" for null, undefined if no scalar. */
export function entryText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  return node.value === null || node.value === undefined ? "" : String(node.value);
}

/**
 * Sets `key` to the string `value`: an existing scalar keeps its node (comments, quote style), anything
 * else is replaced by a new string scalar appended in place.
 */
export function setStringEntry(_doc: Document, map: YAMLMap, key: string, value: string): void {
  setFoundStringEntry(map, key, entryNode(map, key), value);
}

/** setStringEntry where `key`'s node was already found (entryNode: undefined where the map has none). */
export function setFoundStringEntry(map: YAMLMap, key: string, node: unknown, value: string): void {
  if (isScalar(node)) {
    node.value = value;
    return;
  }
  if (node === undefined) map.items.push(readPair(newScalar(key), newScalar(value)));
  else map.add(readPair(newScalar(key), newScalar(value)), true);
}

/** Entries sorted by key (Go's `sort.Strings` over the keys). */
export function sortedEntries(values: ReadonlyMap<string, string>): [string, string][] {
  return [...values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Sets a scalar's text the way kyaml does when it clears the tag: a quoted or block scalar stays a
 * string in its style; a plain one takes the type its new text reads as (`3` a number, `true` a bool).
 */
export function setScalarImplied(node: Scalar, text: string): void {
  const plain = node.type === undefined || node.type === "PLAIN";
  if (!plain) {
    node.value = text;
    return;
  }
  const parsed = parseDocument(text).contents;
  if (!isScalar(parsed) || typeof parsed.value === "string" || parsed.value === undefined) {
    node.value = text;
    return;
  }
  node.value = parsed.value;
  node.format = parsed.format;
  node.minFractionDigits = parsed.minFractionDigits;
  // The kpt formatter writes non-string scalars from their source text: keep the text as given.
  node.source = text;
}
