import { type Document, isMap, isNode, isScalar, isSeq, type Node, type Pair, parseDocument } from "yaml";
import { ANNOTATION, LEGACY_ANNOTATION } from "../kpt/annotations.js";
import { getAnnotation } from "../kpt/resource.js";
import {
  copyHeadComment,
  copyTrailingComment,
  dashCommentsAfterTrip,
  endFeetAfterTrip,
  footAbove,
  footComment,
  headComment,
  setFootComment,
  setHeadComment,
  trailingComment,
} from "../kpt/yaml/comments.js";
import { blockOrFallback } from "../kpt/yaml/format.js";

/**
 * What kpt does to the output of a function process (kyaml's FunctionFilter): each output resource
 * that kept its id gets back the comments of its input resource, and its fields in the input's order
 * (fields the function added go after them). A function that re-encodes its input (dropping comments,
 * sorting keys) then changes the files no more than what it changed.
 */
export function restoreFromInput(input: readonly Document[], output: readonly Document[]): void {
  for (const out of output) {
    const id = getAnnotation(out, ANNOTATION.internalId) ?? getAnnotation(out, LEGACY_ANNOTATION.id);
    const n = id === undefined ? Number.NaN : Number(id);
    const from = Number.isInteger(n) ? input[n - 1] : undefined;
    if (!from || from === out) continue;
    foldedToDouble(from.contents, out.contents, 0);
    copyComments(from.contents as Node | null, out.contents as Node | null);
    documentCommentsToNode(from, out);
    syncOrder(from.contents as Node | null, out.contents as Node | null);
    dashCommentsAfterTrip(out.contents);
  }
}

function keyOf(pair: Pair): string {
  const k = pair.key;
  return isScalar(k) ? String(k.value) : String(k);
}

/**
 * Each entry's key, a key's later entries told apart (`a`, then `a` NUL 1): a resource may hold a key
 * twice (kpt reads it as nodes), and the n-th entry of a key in the output is the n-th in the input —
 * so each keeps its place and its comments (kpt's trip writes the first value in both places: see
 * docs/kpt-compat.md, Deviations).
 */
function entryKeys(pairs: readonly Pair[]): Map<Pair, string> {
  const seen = new Map<string, number>();
  const out = new Map<Pair, string>();
  for (const p of pairs) {
    const k = keyOf(p);
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    out.set(p, n === 0 ? k : `${k}\u0000${n}`);
  }
  return out;
}

/** The entries of a mapping by entryKeys. */
function byEntryKey(pairs: readonly Pair[]): Map<string, Pair> {
  return new Map([...entryKeys(pairs)].map(([p, k]) => [k, p]));
}

/** kyaml's copyFieldComments: the input's comment goes where the output's node has none of its own. */
function copyOne(from: Node, to: Node): void {
  const head = headComment(from);
  const toHead = headComment(to);
  if (head && !toHead) copyHeadComment(from, to);
  else if (head && toHead) {
    // the foot of the entry before, which yaml.v3 holds on that entry's key, apart from this head
    const foot = footAbove(from);
    if (foot !== undefined && footAbove(to) === undefined) setHeadComment(to, `${foot}\n${toHead}`);
  }
  // (the same comment read back: where yaml.v3 holds it, the input tells, its marks copied with it)
  const after = trailingComment(from);
  if (!after) return;
  const toAfter = trailingComment(to);
  if (!toAfter || toAfter === after) copyTrailingComment(from, to);
}

/** kyaml's comments.CopyComments: a comment of the input wins where the same field exists in both. */
function copyComments(from: Node | null, to: Node | null): void {
  if (!from || !to) return;
  copyOne(from, to);
  if (isMap(from) && isMap(to)) {
    const byKey = byEntryKey(from.items as Pair[]);
    for (const [pair, key] of entryKeys(to.items as Pair[])) {
      const match = byKey.get(key);
      if (!match) continue;
      if (isNode(match.key) && isNode(pair.key)) copyOne(match.key, pair.key);
      copyComments(asNode(match.value), asNode(pair.value));
    }
  } else if (isSeq(from) && isSeq(to)) {
    from.items.forEach((item, i) => {
      copyComments(asNode(item), asNode(to.items[i]));
    });
  }
}

/** kyaml's order.SyncOrder: map keys in the input's order, new keys last; lists element by element. */
function syncOrder(from: Node | null, to: Node | null): void {
  if (!from || !to) return;
  if (isMap(from) && isMap(to)) {
    const fromKeys = entryKeys(from.items as Pair[]);
    const rank = new Map([...fromKeys.values()].map((k, i) => [k, i]));
    const pairs = to.items as Pair[];
    const toKeys = entryKeys(pairs);
    const rankOf = (p: Pair) => {
      const key = toKeys.get(p);
      return key === undefined ? undefined : rank.get(key);
    };
    // Each known pair with its rank, so the order is read without a lookup that could miss.
    const known = pairs.flatMap((p) => {
      const r = rankOf(p);
      return r === undefined ? [] : [{ p, r }];
    });
    if (known.some((k, i) => i > 0 && k.r < (known[i - 1]?.r ?? k.r)) || known.length < pairs.length) {
      known.sort((a, b) => a.r - b.r);
      to.items = [...known.map((k) => k.p), ...pairs.filter((p) => rankOf(p) === undefined)];
    }
    const byKey = new Map([...toKeys].map(([p, k]) => [k, p]));
    for (const [p, key] of fromKeys) {
      const match = byKey.get(key);
      if (match) syncOrder(asNode(p.value), asNode(match.value));
    }
  } else if (isSeq(from) && isSeq(to)) {
    from.items.forEach((item, i) => {
      if (i < to.items.length) syncOrder(asNode(item), asNode(to.items[i]));
    });
  }
}

function asNode(v: unknown): Node | null {
  return isNode(v) ? (v as Node) : null;
}

/**
 * What the trip through a function does to a resource's document-level comments in kpt: the function
 * gets the resource's node, not its document, and kyaml's CopyComments then gives the document's head
 * comment to the output's node where it has none. So after a function, a license header is the root
 * mapping's head comment: written without the blank line a document's head comment gets. The
 * document's foot stays the document's (written after a blank line, after the root mapping's own foot
 * if it has one), in no ResourceList a later function gets.
 */
function documentCommentsToNode(from: Document, to: Document): void {
  const node = to.contents as Node | null;
  const head = headComment(from);
  if (node && isNode(node) && head && !headComment(node)) setHeadComment(node, head);
  if (from === to || headComment(to)) setHeadComment(to, undefined);
  const foot = footComment(from);
  if (from !== to && foot && !footComment(to)) setFootComment(to, foot);
}

/**
 * kyaml's CopyComments also restyles every folded (`>`) scalar of the output it reaches as
 * double-quoted (its workaround for kpt issue 766): fields of mappings, and sequence items at the
 * same index as an input item of the same value (a mapping or sequence item always matches). A
 * builtin stands for a container, whose own reading and writing of the ResourceList changes a folded
 * text as kpt's does: `trips` is how many times the text went through yaml.v3's folded writer.
 */
function foldedToDouble(from: unknown, to: unknown, trips: number): void {
  if (isScalar(to)) {
    if (to.type === "BLOCK_FOLDED" && typeof to.value === "string") {
      let value: string = to.value;
      for (let i = 0; i < trips; i++) value = afterFoldedTrip(value);
      to.value = value;
      to.type = "QUOTE_DOUBLE";
    }
    return;
  }
  if (isMap(to)) {
    const byKey = isMap(from) ? byEntryKey(from.items as Pair[]) : undefined;
    for (const [pair, key] of entryKeys(to.items as Pair[])) {
      if (isScalar(pair.key) && pair.key.type === "BLOCK_FOLDED") pair.key.type = "QUOTE_DOUBLE";
      foldedToDouble(byKey?.get(key)?.value, pair.value, trips);
    }
    return;
  }
  if (isSeq(to) && isSeq(from)) {
    const n = Math.min(from.items.length, to.items.length);
    for (let i = 0; i < n; i++) {
      const a = from.items[i];
      const b = to.items[i];
      const same =
        isScalar(a) && isScalar(b)
          ? a.source === b.source || a.value === b.value
          : !isScalar(a) && !isScalar(b);
      if (same) foldedToDouble(a, b, trips);
    }
  }
}

/** The text a folded scalar reads back as after yaml.v3 wrote it (its folded writer adds breaks). */
function afterFoldedTrip(value: string): string {
  const lines = blockOrFallback(value, { flow: false, key: false, indent: 0 }, true);
  if (lines.length === 1) return value;
  const parsed = parseDocument(`v: ${lines.join("\n")}\n`).get("v");
  return typeof parsed === "string" ? parsed : value;
}

/**
 * What kpt's trip through a function does to a document the function handed back unchanged, where the
 * folded texts went `trips` times through yaml.v3's writer: once for an exec function that echoes its
 * input, twice for a container (kpt writes the ResourceList, the container writes it back).
 */
export function functionRoundTrip(doc: Document, trips: number, followed = false): void {
  endFeetAfterTrip(doc.contents, followed);
  documentCommentsToNode(doc, doc);
  restyleFolded(doc.contents, trips);
}

/** foldedToDouble of a node with itself (every node matches): a plain walk, nothing to look up. */
function restyleFolded(node: unknown, trips: number): void {
  if (isScalar(node)) {
    if (node.type === "BLOCK_FOLDED") foldedToDouble(node, node, trips);
  } else if (isMap(node)) {
    for (const pair of node.items as Pair[]) {
      if (isScalar(pair.key) && pair.key.type === "BLOCK_FOLDED") pair.key.type = "QUOTE_DOUBLE";
      restyleFolded(pair.value, trips);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) restyleFolded(item, trips);
  }
}

/**
 * A builtin ran on this document in place: what kpt's trip through the function's container does.
 * `foldedFree`: the document holds no folded scalar (nothing to restyle, no walk needed).
 */
export function builtinRoundTrip(doc: Document, foldedFree = false, followed = false): void {
  if (!foldedFree) {
    functionRoundTrip(doc, 2, followed);
    return;
  }
  endFeetAfterTrip(doc.contents, followed);
  documentCommentsToNode(doc, doc);
}
