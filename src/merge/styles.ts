import { isMap, isScalar, isSeq, type Node, type Scalar } from "yaml";
import { isTaggedNull, type MaybeNode, scalarText } from "./nodes.js";

/**
 * How kpt's merge treats scalar styles, and when its walk would leave a resource exactly as it is.
 */

const OLD_BOOLS = new Set(
  ["y", "yes", "on", "n", "no", "off"].flatMap((w) => [
    w,
    w.charAt(0).toUpperCase() + w.slice(1),
    w.toUpperCase(),
  ]),
);

/**
 * Observed in kpt: a walked scalar that YAML 1.1 (the API server's YAML) reads as a bool but yaml.v3
 * reads as a string (`yes`, `on`, `N`) comes out double-quoted, so its type cannot change; a field
 * that exists locally then takes the local field's style back (see keepStyle).
 */
export function quoteOldBool(node: Node | null): Node | null {
  if (isScalar(node) && isOldBool(node)) node.type = "QUOTE_DOUBLE";
  return node;
}

/**
 * A plain scalar YAML 1.1 reads as a bool and yaml.v3 as a string; not one with a tag of its own
 * (`!!str yes`, `!local on`: the tag says what it is, and kpt leaves it plain).
 */
function isOldBool(node: Scalar): boolean {
  return (node.type === "PLAIN" || node.type === undefined) && !node.tag && OLD_BOOLS.has(String(node.value));
}

/** kyaml's FieldSetter: a value set on an existing field takes that field's style. */
export function keepStyle(existing: Node, value: Node): void {
  if (existing === value) return;
  if (isScalar(existing) && isScalar(value)) {
    if (existing.type !== value.type) {
      value.type = existing.type;
      // the source text no longer says how the value was written: let the writer decide afresh
      value.source = undefined;
    }
  } else if ((isMap(existing) || isSeq(existing)) && (isMap(value) || isSeq(value))) {
    value.flow = existing.flow;
  }
}

/**
 * True when merging a resource with itself (local, original and updated all equal to `node`) leaves
 * it exactly as it is: no null to clear, no YAML 1.1 boolean to quote, no empty collection or
 * repeated key for the walk to drop. Such a resource need not be walked (or even parsed three times).
 */
export function walkIsIdentity(node: unknown): boolean {
  if (isScalar(node)) return !isTaggedNull(node) && !isOldBool(node);
  if (isMap(node)) {
    if (node.items.length === 0) return false;
    const keys = new Set<string>();
    for (const pair of node.items) {
      const key = scalarText(pair.key as MaybeNode);
      if (key === undefined || keys.has(key)) return false;
      keys.add(key);
      if (pair.value === null || pair.value === undefined || !walkIsIdentity(pair.value)) return false;
    }
    return true;
  }
  if (isSeq(node)) return node.items.length > 0 && node.items.every(walkIsIdentity);
  return false;
}
