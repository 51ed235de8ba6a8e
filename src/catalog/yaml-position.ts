import { isMap, isPair, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";

/** A 1-based line and column in a file, as editors and GitHub annotations count them. */
export interface Position {
  line: number;
  column: number;
}

export type PathSegment = string | number;

/**
 * Finds where a value lives in a parsed YAML node: the node at `path`, or, when the path runs past what the
 * file holds (a missing field), the key of the deepest entry that exists. With `preferKey`, a map entry is located at
 * its key (for "unknown field" problems) rather than its value.
 */
export function locatePath(
  root: unknown,
  path: readonly PathSegment[],
  options: { preferKey?: boolean } = {},
): { node: Node | undefined; found: boolean } {
  let current: unknown = root;
  let lastPair: Pair | undefined;
  for (const segment of path) {
    if (isMap(current)) {
      const pair = current.items.find((p) => keyText(p.key) === String(segment));
      if (!pair) return { node: asNode(lastPair?.key) ?? (current as Node), found: false };
      lastPair = pair;
      current = pair.value ?? pair.key;
    } else if (isSeq(current) && typeof segment === "number") {
      const item = current.items[segment];
      if (item === undefined) return { node: current as Node, found: false };
      lastPair = undefined;
      current = item;
    } else {
      return { node: asNode(current), found: false };
    }
  }
  if (options.preferKey && lastPair && isPair(lastPair) && path.length > 0 && typeof path.at(-1) === "string")
    return { node: asNode(lastPair.key), found: true };
  return { node: asNode(current), found: true };
}

/** The position where `node` starts, or line 1 column 1 when it has no range. */
export function positionOf(node: Node | undefined, lineCounter: LineCounter): Position {
  const offset = node?.range?.[0];
  if (offset === undefined) return { line: 1, column: 1 };
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Renders a path as people write it in YAML docs: `spec.targets[0].template.labels`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

function asNode(value: unknown): Node | undefined {
  return value && typeof value === "object" && "range" in value ? (value as Node) : undefined;
}
