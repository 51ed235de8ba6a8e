import { isMap, isScalar, isSeq, type Node, Pair, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { headComment, lineComment, trailingComment } from "../kpt/yaml/comments.js";

/** Small helpers over `yaml` nodes as the merge sees them (scalars held as source strings). */

export type MaybeNode = Node | null | undefined;

const NULL_VALUES = new Set(["", "~", "null", "Null", "NULL"]);

/** A scalar that YAML reads as null (`~`, `null`, or nothing), as yaml.v3 tags it `!!null`. */
export function isTaggedNull(node: MaybeNode): boolean {
  if (!isScalar(node)) return false;
  if (node.tag === "tag:yaml.org,2002:null" || node.tag === "!!null") return true;
  if (node.tag) return false;
  const plain = node.type === undefined || node.type === "PLAIN";
  return plain && (node.value === null || NULL_VALUES.has(String(node.value)));
}

export function isMissingOrNull(node: MaybeNode): boolean {
  return node === null || node === undefined || isTaggedNull(node);
}

export function scalarText(node: MaybeNode): string | undefined {
  if (!isScalar(node) || node.value === null || node.value === undefined) return undefined;
  return String(node.value);
}

/** The value of `key` in a mapping node. */
export function field(map: MaybeNode, key: string): Node | undefined {
  if (!isMap(map)) return undefined;
  for (const pair of map.items) {
    if (scalarText(pair.key as MaybeNode) === key) return (pair.value as Node | null) ?? undefined;
  }
  return undefined;
}

export function fieldPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => scalarText(p.key as MaybeNode) === key) as Pair | undefined;
}

export function fieldNames(map: MaybeNode): string[] {
  if (!isMap(map)) return [];
  const out: string[] = [];
  for (const pair of map.items) {
    const k = scalarText(pair.key as MaybeNode);
    if (k !== undefined) out.push(k);
  }
  return out;
}

/**
 * Sets `key` to `value` (replacing the value in place when the key exists, appending otherwise, with
 * the key `newKey` makes when given); null removes.
 */
export function setField(map: YAMLMap, key: string, value: MaybeNode, newKey?: () => Scalar): void {
  const idx = map.items.findIndex((p) => scalarText(p.key as MaybeNode) === key);
  if (value === null || value === undefined || isTaggedNull(value)) {
    if (idx >= 0) map.items.splice(idx, 1);
    return;
  }
  const pair = map.items[idx];
  if (pair) {
    pair.value = value;
    return;
  }
  map.items.push(new Pair(newKey ? newKey() : new Scalar(key), value));
}

/**
 * A canonical rendering of a subtree for "did it change" comparisons: values, scalar styles and
 * comments, as kyaml compares encoded nodes.
 */
export function canonical(node: MaybeNode): string {
  if (node === null || node === undefined) return "~missing";
  if (isScalar(node)) {
    return JSON.stringify([
      node.type ?? "PLAIN",
      String(node.value),
      lineComment(node) ?? "",
      node.tag ?? "",
      headComment(node) ?? "",
    ]);
  }
  if (isMap(node)) {
    const parts = node.items.map(
      (p) => `${canonical(p.key as MaybeNode)}:${canonical(p.value as MaybeNode)}`,
    );
    return `{${parts.join(",")}|${trailingComment(node) ?? ""}|${headComment(node) ?? ""}}`;
  }
  if (isSeq(node)) {
    const items = node.items.map((i) => canonical(i as MaybeNode)).join(",");
    return `[${items}|${trailingComment(node) ?? ""}|${headComment(node) ?? ""}]`;
  }
  return JSON.stringify(String(node));
}

export function newMap(): YAMLMap {
  return new YAMLMap();
}

export function newSeq(): YAMLSeq {
  return new YAMLSeq();
}

/** A deep copy, so a node taken from one tree can be placed in another. */
export function copyNode<T extends MaybeNode>(node: T): T {
  if (node === null || node === undefined) return node;
  return (node as Node).clone() as T;
}
