import { type Document, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";

export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface Located {
  /** The node at the path, or the deepest one that exists (a missing field points at its parent map). */
  node: Node | null;
  /** The key of the field when the path ends at a map entry: unknown fields are reported at their key. */
  key: Node | null;
  /** True when the whole path exists in the document. */
  exact: boolean;
}

/** Finds the YAML node a field path (as zod reports it) names, for line and column numbers. */
export function locate(doc: Document, path: readonly PropertyKey[]): Located {
  let node = (doc.contents ?? null) as Node | null;
  let key: Node | null = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = (node.items as Pair[]).find((p) => keyText(p.key) === String(segment));
      if (!pair) return { node, key: null, exact: false };
      key = isScalar(pair.key) ? pair.key : null;
      const value = pair.value as Node | null;
      // `image:` with nothing after it: point at the key, the empty value has no text to point at.
      node = value && !(isScalar(value) && value.range?.[0] === value.range?.[1]) ? value : key;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (!item) return { node, key: null, exact: false };
      key = null;
      node = item;
    } else {
      return { node, key: null, exact: false };
    }
  }
  return { node, key, exact: true };
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

/** Line and column span of a node; the start of the file when there is none (an empty file). */
export function spanOf(node: Node | null, lineCounter: LineCounter): Span {
  const range = node?.range ?? [0, 0, 0];
  return spanOfOffsets(range[0], range[1], lineCounter);
}

export function spanOfOffsets(start: number, end: number, lineCounter: LineCounter): Span {
  const from = lineCounter.linePos(start);
  if (end <= start) return { line: from.line, column: from.col, endLine: from.line, endColumn: from.col };
  // The span ends after its last character; a trailing line break stays on the line it ends.
  const last = lineCounter.linePos(end - 1);
  return { line: from.line, column: from.col, endLine: last.line, endColumn: last.col + 1 };
}
