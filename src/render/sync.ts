import { type Document, isMap, isNode, isScalar, isSeq, type Node, type Pair } from "yaml";
import { ANNOTATION, LEGACY_ANNOTATION } from "../kpt/annotations.js";
import { getAnnotation } from "../kpt/resource.js";

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
    copyComments(from.contents as Node | null, out.contents as Node | null);
    syncOrder(from.contents as Node | null, out.contents as Node | null);
  }
}

function keyOf(pair: Pair): string {
  const k = pair.key;
  return isScalar(k) ? String(k.value) : String(k);
}

function copyOne(from: Node, to: Node): void {
  if (from.commentBefore) to.commentBefore = from.commentBefore;
  if (from.comment) to.comment = from.comment;
}

/** kyaml's comments.CopyComments: a comment of the input wins where the same field exists in both. */
function copyComments(from: Node | null, to: Node | null): void {
  if (!from || !to) return;
  copyOne(from, to);
  if (isMap(from) && isMap(to)) {
    const byKey = new Map((from.items as Pair[]).map((p) => [keyOf(p), p]));
    for (const pair of to.items as Pair[]) {
      const match = byKey.get(keyOf(pair));
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
    const rank = new Map((from.items as Pair[]).map((p, i) => [keyOf(p), i]));
    const pairs = to.items as Pair[];
    const known = pairs.filter((p) => rank.has(keyOf(p)));
    if (
      known.some((p, i) => i > 0 && rank.get(keyOf(p))! < rank.get(keyOf(known[i - 1]!))!) ||
      known.length < pairs.length
    ) {
      known.sort((a, b) => rank.get(keyOf(a))! - rank.get(keyOf(b))!);
      to.items = [...known, ...pairs.filter((p) => !rank.has(keyOf(p)))];
    }
    const byKey = new Map((to.items as Pair[]).map((p) => [keyOf(p), p]));
    for (const p of from.items as Pair[]) {
      const match = byKey.get(keyOf(p));
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
