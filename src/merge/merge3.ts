import { isMap, isScalar, isSeq, type Node, Scalar, type YAMLMap, type YAMLSeq } from "yaml";
import {
  headComment,
  lineComment,
  setHeadComment,
  setLineComment,
  setTrailingComment,
  trailingComment,
} from "../kpt/yaml/comments.js";
import { type CommentSchema, commentSchema, type ListKeys, listKeys } from "./listkeys.js";
import {
  canonical,
  copyNode,
  field,
  fieldNames,
  fieldPair,
  isMissingOrNull,
  isTaggedNull,
  type MaybeNode,
  newMap,
  newSeq,
  scalarText,
  setField,
} from "./nodes.js";
import { keepStyle, quoteOldBool } from "./styles.js";

/**
 * The field-level 3-way merge of one resource, as kpt's resource-merge does it (kyaml's merge3
 * walker): `dest` (the local copy) is edited in place toward the upstream change from `origin` to
 * `updated`.
 *
 * - a scalar or atomic list changed upstream takes the upstream value; unchanged upstream keeps local;
 * - a field added upstream is added (new fields go after the existing ones, in name order);
 *   a field removed upstream is removed; a field added locally is kept;
 * - maps merge field by field; lists with merge keys (see listkeys.ts) merge element by element,
 *   elements added upstream are appended, elements removed upstream are removed;
 * - an explicit `null` upstream or locally clears the field.
 */
export interface ResourceSchemaContext {
  /** Merge keys of the list at `path`, or undefined for an atomic list. */
  keysFor: (path: readonly string[], sources: readonly MaybeNode[]) => ListKeys | undefined;
  /**
   * Told of each field where upstream's new value replaced a local edit (local and upstream both
   * changed it, differently; upstream wins, as in kpt), as a dotted path with list elements by their
   * keys: `spec.template.spec.containers[name=app].image`.
   */
  onReplaced?: (field: string) => void;
}

/** The schema context for a KRM resource: kpt's built-in Kubernetes schema. */
export function resourceContext(group: string, kind: string): ResourceSchemaContext {
  return { keysFor: (path) => listKeys(group, kind, path) };
}

/** Merges and returns the new root (the dest node itself when it existed), or null when cleared. */
export function merge3(
  dest: MaybeNode,
  origin: MaybeNode,
  updated: MaybeNode,
  ctx: ResourceSchemaContext,
): Node | null {
  return walk([dest, origin, updated], [], ctx, "");
}

type Sources = [MaybeNode, MaybeNode, MaybeNode];

function kindOfSources(s: Sources): "map" | "seq" | "scalar" | "none" {
  for (const n of s) {
    if (isMissingOrNull(n)) continue;
    if (isMap(n)) return "map";
    if (isSeq(n)) return "seq";
    return "scalar";
  }
  return s.some((n) => n !== null && n !== undefined) ? "scalar" : "none";
}

function mixed(s: Sources): boolean {
  const kinds = new Set(
    s.filter((n) => !isMissingOrNull(n)).map((n) => (isMap(n) ? "map" : isSeq(n) ? "seq" : "scalar")),
  );
  return kinds.size > 1;
}

function walk(
  s: Sources,
  path: string[],
  ctx: ResourceSchemaContext,
  where: string,
  element = false,
): Node | null {
  if (mixed(s)) return noteReplaced(s, canonical, ctx, where, visitAtomic(s));
  switch (kindOfSources(s)) {
    case "map":
    case "none":
      return walkMap(s, path, ctx, where, element);
    case "seq": {
      const keys = associativeKeys(s, path, ctx);
      return keys === undefined
        ? noteReplaced(s, canonical, ctx, where, visitAtomic(s))
        : walkAssociative(s, keys, path, ctx, where);
    }
    default:
      return noteReplaced(s, styleless, ctx, where, quoteOldBool(visitScalar(s)));
  }
}

/** The merge keys of the list the sources hold at `path`, or undefined when it merges as a whole. */
function associativeKeys(s: Sources, path: string[], ctx: ResourceSchemaContext): ListKeys | undefined {
  const keys = ctx.keysFor(path, s);
  if (keys === undefined || (keys.length === 0 && s.some((n) => isSeq(n) && n.items.some(isMap)))) {
    return undefined;
  }
  return keys;
}

/**
 * Tells ctx.onReplaced when a value (a scalar, or a list taken whole) edited locally was replaced by
 * upstream's different edit; returns `result`.
 */
function noteReplaced(
  [dest, origin, updated]: Sources,
  text: (n: MaybeNode) => string,
  ctx: ResourceSchemaContext,
  where: string,
  result: Node | null,
): Node | null {
  if (!ctx.onReplaced || isMissingOrNull(dest) || result === dest) return result;
  const d = text(dest);
  const o = isMissingOrNull(origin) ? undefined : text(origin);
  const u = isMissingOrNull(updated) ? undefined : text(updated);
  if (o !== undefined && d !== o && u !== o && u !== d) ctx.onReplaced(where);
  return result;
}

/**
 * kyaml's scalar rule: compared as encoded text with the quoting style left out (so `"1"` and `1`
 * are the same), comments included; an upstream change wins when the local value is unchanged, a
 * value change upstream wins always, otherwise the local value stays.
 */
function visitScalar([dest, origin, updated]: Sources): Node | null {
  if (isTaggedNull(updated) || isTaggedNull(dest)) return null;
  if (isMissingOrNull(updated) !== isMissingOrNull(origin)) return copyNode(updated) ?? null;
  if (isMissingOrNull(updated) && isMissingOrNull(origin)) return dest ?? null;
  const u = styleless(updated);
  const o = styleless(origin);
  const d = dest === null || dest === undefined ? "" : styleless(dest);
  if ((d === "" || d === o) && o !== u) return copyNode(updated) ?? null;
  if (scalarText(updated) !== scalarText(origin)) return copyNode(updated) ?? null;
  return dest ?? null;
}

function styleless(node: MaybeNode): string {
  if (!isScalar(node)) return canonical(node);
  return JSON.stringify([String(node.value), lineComment(node) ?? "", headComment(node) ?? ""]);
}

/** Lists without merge keys (and type changes): taken whole from the side that changed. */
function visitAtomic([dest, origin, updated]: Sources): Node | null {
  if (isTaggedNull(updated) || isTaggedNull(dest)) return null;
  if (isMissingOrNull(updated) !== isMissingOrNull(origin)) return copyNode(updated) ?? null;
  if (isMissingOrNull(updated) && isMissingOrNull(origin)) return dest ?? null;
  if (canonical(updated) !== canonical(origin)) return copyNode(updated) ?? null;
  return dest ?? null;
}

/**
 * A map merged field by field. The `yaml` parser keeps the head comment of a map's first key and the
 * map's foot comment on the map; yaml.v3 (kyaml) keeps them on the first and last keys. So they are
 * moved onto the keys for the merge and back after it, except on list elements, where the head
 * comment is the element's own (kept from the local element, lost on an element built afresh).
 */
function walkMap(
  s: Sources,
  path: string[],
  ctx: ResourceSchemaContext,
  where: string,
  element = false,
): Node | null {
  const [dest, origin, updated] = s;
  if (isTaggedNull(updated) || isTaggedNull(dest)) return null;
  if ((dest === null || dest === undefined) && (updated === null || updated === undefined)) return null;
  const target: YAMLMap = isMap(dest) ? dest : newMap();
  const foots = new Map<Scalar, string>();
  for (const src of s) if (isMap(src)) commentsToKeys(src, element, foots);
  const names = new Set<string>();
  for (const n of s) for (const k of fieldNames(n)) names.add(k);
  for (const key of [...names].sort()) {
    const keys: KeySources = [keyOf(target, key), keyOf(origin, key), keyOf(updated, key)];
    const comments = visitKey(keys, foots);
    const existing = field(target, key);
    const fieldSources: Sources = [existing, field(origin, key), field(updated, key)];
    const value = walk(
      fieldSources,
      [...path, key],
      fieldContext(keys, fieldSources, path.length + 1, ctx),
      where ? `${where}.${key}` : key,
    );
    if (existing && value) keepStyle(existing, value);
    const [destKey] = keys;
    if (destKey && comments) setComments(destKey, comments, foots);
    setField(target, key, value, () => {
      // kyaml's FieldSetter appends a new field with the key style of the source its value came from
      // (a map or an associative list is built afresh: plain key) and the comments the key visit chose
      const k = new Scalar(key);
      const fresh =
        isMap(value) ||
        (isSeq(value) &&
          !mixed(fieldSources) &&
          associativeKeys(fieldSources, [...path, key], ctx) !== undefined);
      if (!fresh && keys[2]) k.type = keys[2].type;
      if (comments) setComments(k, comments, foots);
      return k;
    });
  }
  for (const src of s) if (isMap(src) && src !== target) commentsToMap(src, element, foots);
  commentsToMap(target, element, foots);
  return target;
}

/** The map's head (first key) and foot (last key) comments moved onto its keys; `foots` holds the feet. */
function commentsToKeys(map: YAMLMap, element: boolean, foots: Map<Scalar, string>): void {
  const first = map.items[0]?.key;
  const last = map.items[map.items.length - 1]?.key;
  const mapHead = headComment(map);
  if (!element && isScalar(first) && mapHead) {
    const firstHead = headComment(first);
    setHeadComment(first, firstHead ? `${mapHead}\n${firstHead}` : mapHead);
    setHeadComment(map, undefined);
  }
  const mapFoot = trailingComment(map);
  if (isScalar(last) && mapFoot) {
    foots.set(last, mapFoot);
    setTrailingComment(map, undefined);
  }
  // a key's head comment that a blank line ends or cuts (`foot\n`, `foot\n\nhead`) starts with the
  // previous key's foot, as commentsToMap writes it (and kpt's annotation set after a foot leaves it)
  map.items.forEach((pair, i) => {
    const prev = map.items[i - 1]?.key;
    const key = pair.key;
    const text = isScalar(key) ? headComment(key) : undefined;
    if (!isScalar(prev) || !isScalar(key) || !text || foots.has(prev)) return;
    const cut = text.endsWith("\n") && !text.includes("\n\n") ? text.length - 1 : text.indexOf("\n\n");
    if (cut <= 0) return;
    foots.set(prev, text.slice(0, cut));
    const head = text.slice(cut).replace(/^\n+/, "");
    setHeadComment(key, head === "" ? undefined : head);
  });
}

/** Back from the keys: the first key's head comment onto the map, each key's foot after it. */
function commentsToMap(map: YAMLMap, element: boolean, foots: Map<Scalar, string>): void {
  map.items.forEach((pair, i) => {
    const key = pair.key;
    if (!isScalar(key)) return;
    const foot = foots.get(key);
    if (foot === undefined) return;
    foots.delete(key);
    const next = map.items[i + 1]?.key;
    // yaml.v3 writes a foot comment followed by a blank line when more follows
    if (isScalar(next)) {
      const head = headComment(next);
      setHeadComment(next, `${foot}\n${head ? `\n${head}` : ""}`);
    } else {
      const own = trailingComment(map);
      setTrailingComment(map, own ? `${foot}\n${own}` : foot);
    }
  });
  const first = map.items[0]?.key;
  const firstHead = isScalar(first) ? headComment(first) : undefined;
  if (!element && isScalar(first) && firstHead) {
    setHeadComment(map, firstHead);
    setHeadComment(first, undefined);
  }
}

/**
 * kyaml reads a field's schema from its comments (the value's line or head comment, else the key's;
 * the first side that has one, local first): such a schema decides the merge keys below the field.
 */
function fieldContext(
  keys: KeySources,
  values: Sources,
  depth: number,
  ctx: ResourceSchemaContext,
): ResourceSchemaContext {
  for (let i = 0; i < 3; i++) {
    const value = values[i];
    const key = keys[i];
    const schema =
      (isScalar(value) ? schemaOf(lineComment(value), headComment(value)) : undefined) ??
      (key ? schemaOf(lineComment(key), headComment(key)) : undefined);
    if (schema) return { ...ctx, keysFor: (p) => schema.keysAt(p.slice(depth)) };
  }
  return ctx;
}

/** kyaml's FieldMeta.Read: the first non-empty of a line and a head comment, if it is a schema. */
function schemaOf(
  line: string | null | undefined,
  head: string | null | undefined,
): CommentSchema | undefined {
  const c = line || head;
  return c ? commentSchema(c) : undefined;
}

type KeySources = [Scalar | undefined, Scalar | undefined, Scalar | undefined];

function keyOf(map: MaybeNode, key: string): Scalar | undefined {
  if (!isMap(map)) return undefined;
  const pair = fieldPair(map, key);
  return pair && isScalar(pair.key) ? pair.key : undefined;
}

interface KeyComments {
  before: string | null | undefined;
  line: string | null | undefined;
  foot: string | undefined;
}

/**
 * kyaml visits map keys as scalars (merge3's VisitKeysAsScalars): the three keys compared with their
 * comments; a comment changed upstream reaches the local key unless the local key changed its own.
 * Returns the comments the key ends with, or undefined when no side decides (dest keeps what it has).
 */
function visitKey([dest, origin, updated]: KeySources, foots: Map<Scalar, string>): KeyComments | undefined {
  const text = (k: Scalar | undefined) =>
    k === undefined
      ? ""
      : JSON.stringify([String(k.value), lineComment(k) ?? "", headComment(k) ?? "", foots.get(k) ?? ""]);
  const chosen =
    (updated === undefined) !== (origin === undefined)
      ? updated
      : updated === undefined
        ? dest
        : (dest === undefined || text(dest) === text(origin)) && text(origin) !== text(updated)
          ? updated
          : dest;
  return chosen
    ? { before: headComment(chosen), line: lineComment(chosen), foot: foots.get(chosen) }
    : undefined;
}

function setComments(k: Scalar, c: KeyComments, foots: Map<Scalar, string>): void {
  setHeadComment(k, c.before ?? undefined);
  setLineComment(k, c.line ?? undefined);
  if (c.foot === undefined) foots.delete(k);
  else foots.set(k, c.foot);
}

/** The values of `keys` in an element ("" where absent), or undefined when it is not a map. */
function keyValues(elem: unknown, keys: ListKeys): string[] | undefined {
  if (keys.length === 0) return isScalar(elem) ? [String(elem.value)] : undefined;
  if (!isMap(elem)) return undefined;
  return keys.map((k) => scalarText(field(elem, k)) ?? "");
}

/** kyaml's rule: match on the keys that have a value; if none has one, on all of them. */
function validKeys(values: string[], keys: ListKeys): { keys: string[]; values: string[] } {
  const k: string[] = [];
  const v: string[] = [];
  values.forEach((value, i) => {
    const key = keys[i];
    if (value !== "" && key !== undefined) {
      k.push(key);
      v.push(value);
    }
  });
  return k.length === 0 ? { keys: [...keys], values } : { keys: k, values: v };
}

function matches(elem: unknown, keys: ListKeys, k: string[], v: string[]): boolean {
  if (keys.length === 0) return isScalar(elem) && String(elem.value) === v[0];
  if (!isMap(elem)) return false;
  return k.every((key, i) => (scalarText(field(elem, key)) ?? "") === v[i]);
}

function findElement(list: MaybeNode, keys: ListKeys, k: string[], v: string[]): MaybeNode {
  if (!isSeq(list)) return undefined;
  return list.items.find((e) => matches(e, keys, k, v)) as MaybeNode;
}

function walkAssociative(
  s: Sources,
  keys: ListKeys,
  path: string[],
  ctx: ResourceSchemaContext,
  where: string,
): Node | null {
  const [dest, origin, updated] = s;
  // a list removed upstream (missing or null) is cleared, elements added locally included
  if (isMissingOrNull(updated) && !isMissingOrNull(origin)) {
    if (ctx.onReplaced && !isMissingOrNull(dest) && canonical(dest) !== canonical(origin))
      ctx.onReplaced(where);
    return null;
  }
  const target: YAMLSeq = isSeq(dest) ? dest : newSeq();
  // the `yaml` parser keeps the first element's head comment on the list: back on the element
  const head = headComment(target);
  const firstItem = target.items[0];
  if (head && isMap(firstItem)) {
    const itemHead = headComment(firstItem);
    setHeadComment(firstItem, itemHead ? `${head}\n${itemHead}` : head);
    setHeadComment(target, undefined);
  }

  const seen = new Set<string>();
  const all: string[][] = [];
  for (const src of s) {
    if (!isSeq(src)) continue;
    for (const elem of src.items) {
      const vals = keyValues(elem, keys);
      if (!vals) continue;
      const id = JSON.stringify(vals);
      if (seen.has(id)) continue;
      seen.add(id);
      all.push(vals);
    }
  }

  for (const vals of all) {
    const { keys: k, values: v } = validKeys(vals, keys);
    const existing = findElement(target, keys, k, v);
    const sources: Sources = [existing, findElement(origin, keys, k, v), findElement(updated, keys, k, v)];
    const merged =
      keys.length === 0
        ? visitScalar(sources)
        : walk(sources, path, ctx, `${where}[${k.map((key, i) => `${key}=${v[i]}`).join(",")}]`, true);
    const others = target.items.filter((e) => e !== existing && !matches(e, keys, k, v));
    if (merged === null || isMissingOrNull(merged) || (isMap(merged) && merged.items.length === 0)) {
      target.items = others;
      continue;
    }
    if (keys.length > 0 && isMap(merged)) {
      k.forEach((key, i) => {
        const value = v[i];
        if (value !== undefined && field(merged, key) === undefined) setField(merged, key, newScalar(value));
      });
    }
    const at = existing ? target.items.indexOf(existing) : -1;
    if (at >= 0) {
      target.items = target.items.filter((e, i) => i === at || others.includes(e));
      target.items[target.items.indexOf(existing as never)] = merged;
    } else {
      target.items = [...others, merged];
    }
  }
  const first = target.items[0];
  const firstHead = isMap(first) ? headComment(first) : undefined;
  if (isMap(first) && firstHead) {
    setHeadComment(target, firstHead);
    setHeadComment(first, undefined);
  }
  // an emptied list stays as `[]` (kpt's element setter leaves the empty list in place); a list removed
  // upstream went above
  return target;
}

function newScalar(value: string): Node {
  return new Scalar(value);
}
