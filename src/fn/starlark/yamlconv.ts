import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  Pair,
  Scalar,
  YAMLMap,
  YAMLSeq,
} from "yaml";
import { copyComments } from "../../kpt/yaml/comments.js";
import { fail } from "./errors.js";
import { fromBytes, toBytes } from "./utf8.js";
import { isInt, None, StarFloat, typeName, type Value } from "./values/core.js";
import { HashTable, StarDict, StarSet } from "./values/dict.js";
import { StarList, StarTuple } from "./values/list.js";
import { formatFloat } from "./values/repr.js";
import { yamlKeyCompare } from "./yamlsort.js";

/**
 * YAML ↔ Starlark conversion with the result kpt gets from the catalog's starlark function. The function
 * round-trips every resource through Go maps (`yaml.Marshal`), so its output has sorted keys, block
 * collections and plain scalars (quoted only where the value needs it); kpt then copies the input's
 * comments back and restores the input's key order, new keys following in yaml.v3 key order. Here each dict
 * and list remembers the YAML node it came from and converting back rewrites that node in place: comments
 * and key order stay, styles (quotes, flow collections, anchors) are reset as the round trip resets them.
 */
export function yamlToStar(node: unknown, doc: Document): Value {
  if (isAlias(node)) return yamlToStar(node.resolve(doc), doc);
  if (isMap(node)) {
    const d = new StarDict();
    d.origin = node;
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? pair.key.value : pair.key;
      d.set(scalarKey(k), yamlToStar(pair.value, doc));
    }
    return d;
  }
  if (isSeq(node)) {
    const l = new StarList(node.items.map((n) => yamlToStar(n, doc)));
    (l as StarList & { origin?: unknown }).origin = node;
    return l;
  }
  if (isScalar(node)) return scalarToStar(node);
  return None;
}

function scalarKey(k: unknown): Value {
  return toBytes(String(k));
}

function scalarToStar(s: Scalar): Value {
  const v = s.value;
  if (v === null || v === undefined) return None;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return toBytes(v);
  if (typeof v === "bigint") return v;
  if (typeof v === "number") {
    const src = s.source ?? String(v);
    if (Number.isSafeInteger(v) && !/[.eE]/.test(src)) return v;
    if (Number.isInteger(v) && /^[-+]?\d+$/.test(src)) return BigInt(src);
    return new StarFloat(v);
  }
  return String(v);
}

function keyOf(pair: Pair): string | undefined {
  const k = isScalar(pair.key) ? pair.key.value : pair.key;
  return k === null || k === undefined ? undefined : String(k);
}

const VALUE_ERR = "unmarshaling starlark value: ";

/**
 * Why a value cannot go back to YAML, worded as starlib's util.Unmarshal (which the catalog function
 * uses): one "unmarshaling starlark value: " per enclosing dict, counting the ResourceList itself.
 */
function unconvertible(v: Value, depth: number): never {
  const why =
    v instanceof StarSet ? "sets aren't yet supported" : `unrecognized starlark type: ${typeName(v)}`;
  return fail(VALUE_ERR.repeat(depth) + why);
}

/** A float as Go's yaml.v3 writes it: strconv's shortest %g, and .inf / -.inf / .nan. */
function yamlFloat(f: number): string {
  if (Number.isNaN(f)) return ".nan";
  if (!Number.isFinite(f)) return f > 0 ? ".inf" : "-.inf";
  const s = formatFloat(f);
  return s.endsWith(".0") ? s.slice(0, -2) : s;
}

function scalarOf(v: Value): Scalar | undefined {
  if (v === None) return new Scalar(null);
  if (typeof v === "string") return new Scalar(fromBytes(v));
  if (typeof v === "boolean" || isInt(v)) return new Scalar(v);
  if (v instanceof StarFloat) {
    const node = new Scalar(v.v);
    node.source = yamlFloat(v.v);
    return node;
  }
  return undefined;
}

/**
 * The YAML nodes already placed in the output: a node is reused (keeping its comments) at most once, so a
 * dict the script put in two places, or in two resources, never becomes one node shared by both. Null
 * builds every node afresh, keys sorted (yaml.dumps).
 */
export type Claims = Set<object> | null;

function claim<T extends object>(node: T | undefined, claims: Claims): node is T {
  if (!node || !claims || claims.has(node)) return false;
  claims.add(node);
  return true;
}

/**
 * Converts a Starlark value back to a YAML node, reusing `origin` where possible. `depth` counts the dicts
 * above the value (the ResourceList is one), for Go's error text.
 */
export function starToYaml(v: Value, origin: unknown, depth: number, claims: Claims): Node {
  if (v instanceof HashTable && v.typeName === "dict") return dictToYaml(v, depth, claims);
  if (v instanceof StarList || v instanceof StarTuple) return listToYaml(v, origin, depth, claims);
  const node = scalarOf(v) ?? unconvertible(v, depth);
  if (isScalar(origin)) {
    copyComments(origin, node);
    node.spaceBefore = origin.spaceBefore;
  }
  return node;
}

/**
 * Checks that `v` can go back to YAML, throwing the error starToYaml would, before any node is touched: a
 * failing script output leaves the input documents as they were. A value that contains itself fails here
 * (the catalog function would overflow its stack).
 */
export function assertYamlable(v: Value, depth: number, path: object[] = []): void {
  if (v instanceof HashTable && v.typeName === "dict") {
    if (path.includes(v)) fail(`${VALUE_ERR.repeat(depth)}dict contains itself`);
    path.push(v);
    for (const e of v.map.values()) {
      keyText(e.k, depth + 1);
      assertYamlable(e.v, depth + 1, path);
    }
    path.pop();
    return;
  }
  if (v instanceof StarList || v instanceof StarTuple) {
    if (path.includes(v)) fail(`${VALUE_ERR.repeat(depth)}${v.typeName} contains itself`);
    path.push(v);
    for (const e of v.elems) assertYamlable(e, depth, path);
    path.pop();
    return;
  }
  if (!scalarOf(v)) unconvertible(v, depth);
}

/** A dict key as text (Go's yaml.Marshal of a map with non-string keys writes them as scalars). */
function keyText(k: Value, depth: number): string {
  if (typeof k === "string") return fromBytes(k);
  const node = scalarOf(k);
  if (!node)
    return fail(
      `${VALUE_ERR.repeat(depth - 1)}unmarshaling starlark key: unrecognized starlark type: ${typeName(k)}`,
    );
  return node.source ?? String(node.value);
}

function dictToYaml(d: HashTable, depth: number, claims: Claims): YAMLMap {
  const candidate = isMap(d.origin) ? (d.origin as YAMLMap) : undefined;
  const map = claim(candidate, claims) ? candidate : new YAMLMap();
  map.flow = false;
  map.anchor = undefined;
  const existing = new Map<string, Pair>();
  for (const p of map.items as Pair[]) {
    const k = keyOf(p);
    if (k !== undefined) existing.set(k, p);
  }
  const kept: Pair[] = [];
  const added: Pair[] = [];
  const seen = new Set<string>();
  for (const e of d.map.values()) {
    const key = keyText(e.k, depth + 1);
    seen.add(key);
    const p = existing.get(key);
    if (p) {
      p.key = restyledKey(p.key, key);
      p.value = starToYaml(e.v, p.value, depth + 1, claims);
    } else {
      //  a key that is not a string is a scalar: keyText above failed on any other
      const k = typeof e.k === "string" ? new Scalar(key) : scalarOf(e.k)!;
      added.push(new Pair(k, starToYaml(e.v, undefined, depth + 1, claims)));
    }
  }
  for (const p of map.items as Pair[]) {
    const k = keyOf(p);
    if (k !== undefined && seen.has(k)) kept.push(p);
  }
  added.sort((a, b) => yamlKeyCompare(keyOf(a) ?? "", keyOf(b) ?? ""));
  map.items = [...kept, ...added];
  return map;
}

function listToYaml(l: StarList | StarTuple, origin: unknown, depth: number, claims: Claims): YAMLSeq {
  const own = (l as { origin?: unknown }).origin;
  const candidate = isSeq(own) ? own : isSeq(origin) ? origin : undefined;
  const seq = claim(candidate, claims) ? candidate : new YAMLSeq();
  seq.flow = false;
  seq.anchor = undefined;
  const old = seq.items.slice();
  seq.items = l.elems.map((e, i) => starToYaml(e, old[i], depth, claims));
  return seq;
}

/** A key as the round trip writes it: plain unless it needs quotes, its comments kept. */
function restyledKey(key: unknown, text: string): Scalar {
  const node = new Scalar(text);
  if (isScalar(key)) {
    copyComments(key, node);
    node.spaceBefore = key.spaceBefore;
  }
  return node;
}
