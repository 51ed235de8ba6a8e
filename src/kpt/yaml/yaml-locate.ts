import { isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";

/**
 * From a field path (as zod reports it) to a line and column in the YAML text, for every layer that
 * reports problems in a file: the Kptfile, the repository configuration, the catalog, variant files.
 */

/** A step of a field path: a map key or a sequence index. */
export type PathSegment = string | number;

/** A 1-based line and column, as editors and GitHub annotations count them. */
export interface Position {
  line: number;
  column: number;
}

/** Where a node's text starts and ends (1-based; the end column is just past the last character). */
export interface Span extends Position {
  endLine: number;
  endColumn: number;
}

export interface Located {
  /**
   * The node at the path when the whole path exists (an empty value included); else the deepest node that
   * does: the map or sequence that lacks the next step, or the scalar the path runs into. Null for an
   * empty document.
   */
  node: Node | null;
  /** The key of the map entry `node` is the value of; null for the root and for sequence items. */
  key: Node | null;
  /** True when the whole path exists in the document. */
  exact: boolean;
}

/** Walks a field path from a document's root node (`doc.contents`). A map key matches by its text. */
export function locate(root: Node | null | undefined, path: readonly PropertyKey[]): Located {
  let node: Node | null = root ?? null;
  let key: Node | null = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = (node.items as Pair[]).find((p) => keyText(p.key) === String(segment));
      if (!pair) return { node, key, exact: false };
      key = isScalar(pair.key) ? pair.key : null;
      // An entry without a value (`? a`, or `{a}`) stands at its key.
      node = (pair.value ?? key) as Node | null;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (item === undefined) return { node, key, exact: false };
      key = null;
      node = item;
    } else {
      return { node, key, exact: false };
    }
  }
  return { node, key, exact: true };
}

export interface PointOptions {
  /** An existing map entry is shown at its key, not its value: where an unknown field is reported. */
  preferKey?: boolean;
  /**
   * A missing field is shown at the key of the map that lacks it (`spec:`); without this, at that map
   * itself (its first entry).
   */
  missingAtParentKey?: boolean;
  /** An empty value (`image:` with nothing after it) is shown at its key: it has no text to point at. */
  emptyAtKey?: boolean;
}

/** The node a problem at a located path is shown at. */
export function pointAt(at: Located, options: PointOptions = {}): Node | null {
  if (at.exact) {
    if (options.preferKey && at.key) return at.key;
  } else if (options.missingAtParentKey && at.key && isMap(at.node)) {
    return at.key;
  }
  if (options.emptyAtKey && at.key && isScalar(at.node) && at.node.range?.[0] === at.node.range?.[1])
    return at.key;
  return at.node;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

/** Where a node starts; line 1 column 1 when there is none (an empty file). */
export function positionOf(node: Node | null | undefined, lineCounter: LineCounter): Position {
  return positionAt(node?.range?.[0] ?? 0, lineCounter);
}

/** The line and column of an offset into the text (as the yaml package reports errors). */
export function positionAt(offset: number, lineCounter: LineCounter): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Line and column span of a node; the start of the file when there is none (an empty file). */
export function spanOf(node: Node | null | undefined, lineCounter: LineCounter): Span {
  const range = node?.range ?? [0, 0, 0];
  return spanOfOffsets(range[0], range[1], lineCounter);
}

export function spanOfOffsets(start: number, end: number, lineCounter: LineCounter): Span {
  const from = positionAt(start, lineCounter);
  if (end <= start) return { ...from, endLine: from.line, endColumn: from.column };
  // The span ends after its last character; a trailing line break stays on the line it ends.
  const last = positionAt(end - 1, lineCounter);
  return { ...from, endLine: last.line, endColumn: last.column + 1 };
}

/** `a.b[0].c` from a path of keys and indices, keys written as they are. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/**
 * `spec.targets[0].template.labels`, with a key that is not a plain name quoted in brackets:
 * `metadata.annotations["config.kubernetes.io/index"]`.
 */
export function formatQuotedFieldPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
