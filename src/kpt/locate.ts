import { type Document, isMap, isPair, isScalar, type LineCounter, type Node } from "yaml";
import type { SourcePosition } from "./errors.js";
import { formatFieldPath } from "./errors.js";
import { nodePosition } from "./yamlfile.js";

/**
 * The position of a field in a parsed document, for schema errors: the value's node when it exists,
 * else the nearest existing parent. With `key`, the position of that key inside the mapping at `path`
 * (for unknown-field errors).
 */
export function locateField(
  doc: Document,
  lineCounter: LineCounter,
  file: string,
  path: readonly PropertyKey[],
  key?: string,
): SourcePosition {
  const keys = path.filter((p): p is string | number => typeof p === "string" || typeof p === "number");
  const field = formatFieldPath(key === undefined ? keys : [...keys, key]);
  for (let n = keys.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(keys.slice(0, n), true);
    if (!node || typeof node !== "object") continue;
    if (n === keys.length && key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
      if (pair && isPair(pair)) return nodePosition(file, pair.key as Node, lineCounter, field);
    }
    return nodePosition(file, node as Node, lineCounter, field);
  }
  return { file, field };
}
