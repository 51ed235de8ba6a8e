import { isMap, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { compileGoRegexp, type GoRegexp } from "./go-regexp.js";
import { scalarText } from "./yaml-scalar.js";

/**
 * Field paths as kustomize's replacements walk them (kyaml's PathGetter and PathMatcher):
 * `spec.template.spec.containers.[name=web].image`, `spec.containers.0.image`, `spec.ports.*.port`,
 * `metadata.annotations.[config.kubernetes.io/local-config]`, and `a\.b` for a key holding a dot.
 */

/** A place holding a node: reading it, and putting another node there. */
export interface Slot {
  readonly node: unknown;
  replace(next: unknown): void;
}

export type NodeKind = "map" | "seq" | "scalar";

export class PathError extends Error {}

/** kyaml's `SmarterPathSplitter` on ".": escaped dots join, `[a.b]` stays one part (brackets dropped without "="). */
export function splitFieldPath(path: string): string[] {
  const raw = path.split(".");
  if (raw.length > 1 && raw[0] === "") raw.shift();
  const escaped: string[] = [];
  for (const part of raw) {
    const last = escaped.length - 1;
    //  escaped[last] exists: last >= 0
    if (last >= 0 && escaped[last]!.endsWith("\\")) escaped[last] = `${escaped[last]!.slice(0, -1)}.${part}`;
    else escaped.push(part);
  }
  const out: string[] = [];
  for (let i = 0; i < escaped.length; i++) {
    const part = escaped[i]!; // i < escaped.length
    if (!part.startsWith("[") || part.endsWith("]")) {
      out.push(part);
      continue;
    }
    const bracketed = [part];
    while (i < escaped.length - 1) {
      i++;
      //  i < escaped.length: the loop stops one before the end
      bracketed.push(escaped[i]!);
      if (escaped[i]?.endsWith("]")) break;
    }
    const joined = bracketed.join(".");
    out.push(joined.includes("=") ? joined : joined.replace(/^\[+|\]+$/g, ""));
  }
  return out;
}

function isListIndex(part: string): boolean {
  return part.startsWith("[") && part.endsWith("]");
}

/** Go's strconv.Atoi accepts an optional sign. */
function parseIndex(part: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(part) ? Number(part) : undefined;
}

/** `[name=value]` → ["name", "value"]; `[=value]` → ["", "value"]. */
function splitIndexNameValue(part: string): [string, string] {
  const inner = part.replace(/^\[/, "").replace(/\]$/, "");
  const eq = inner.indexOf("=");
  if (eq < 0) throw new PathError("list path element must contain fieldName=fieldValue for element to match");
  return [inner.slice(0, eq), inner.slice(eq + 1)];
}

function kindName(node: unknown): string {
  if (isMap(node)) return "MappingNode";
  if (isSeq(node)) return "SequenceNode";
  return "ScalarNode";
}

function isNull(node: unknown): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

/** The items of a sequence; [] for null; an error for anything else (kyaml's `Elements`). */
function elementsOf(node: unknown): unknown[] {
  if (isSeq(node)) return node.items;
  if (isNull(node)) return [];
  throw new PathError(`wrong node kind: expected SequenceNode but got ${kindName(node)}`);
}

function textOf(node: unknown): string {
  return isScalar(node) ? scalarText(node).trim() : "";
}

function fieldSlot(map: YAMLMap, key: string): Slot | undefined {
  const pair = map.items.find((p) => (isScalar(p.key) ? scalarText(p.key) : p.key) === key);
  if (!pair) return undefined;
  return { node: pair.value, replace: (next) => (pair.value = next) };
}

function itemSlot(seq: YAMLSeq, index: number): Slot {
  return { node: seq.items[index], replace: (next) => (seq.items[index] = next) };
}

/** The element of a sequence whose `name` field (or, for `[=v]`, whose own value) is exactly `value`. */
function findElement(seq: unknown, name: string, value: string): Slot | undefined {
  const items = elementsOf(seq);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const text = name === "" ? textOf(item) : isMap(item) ? textOf(item.get(name, true)) : undefined;
    if (text === value) return itemSlot(seq as YAMLSeq, i);
  }
  return undefined;
}

/** kyaml's `Lookup`: the node at the path, or undefined when a part is missing. No wildcards. */
export function lookupPath(root: unknown, parts: readonly string[]): unknown {
  let slot: Slot | undefined = { node: root, replace: () => undefined };
  for (const part of cleanPath(parts)) {
    slot = step(slot.node, part);
    if (!slot || isNull(slot.node)) return slot?.node;
  }
  return slot.node;
}

function cleanPath(parts: readonly string[]): string[] {
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

function step(node: unknown, part: string): Slot | undefined {
  const index = parseIndex(part);
  if (index !== undefined) {
    if (index < 0) throw new PathError(`array index ${index} cannot be negative`);
    const items = elementsOf(node);
    return index < items.length ? itemSlot(node as YAMLSeq, index) : undefined;
  }
  if (part === "-") {
    const items = elementsOf(node);
    return items.length > 0 ? itemSlot(node as YAMLSeq, items.length - 1) : undefined;
  }
  if (part === "*") throw new PathError("wildcard is not supported in PathGetter");
  if (isListIndex(part)) {
    const [name, value] = splitIndexNameValue(part);
    return findElement(node, name, value);
  }
  return isMap(node) ? fieldSlot(node, part) : undefined;
}

/**
 * kyaml's `LookupCreate`: like lookupPath, creating missing fields (and `[name=value]` elements) on the
 * way, the last one as a node of `kind`. Indexes past the end are not created: undefined then.
 */
export function lookupCreate(root: Slot, parts: readonly string[], kind: NodeKind): Slot | undefined {
  const path = cleanPath(parts);
  let slot: Slot = root;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!; // i < path.length
    const createKind = kindForNext(path[i + 1], kind);
    let next: Slot | undefined;
    if (isListIndex(part)) {
      const [name, value] = splitIndexNameValue(part);
      next = findElement(slot.node, name, value);
      if (!next) {
        const seq = ensureCollection(slot, "seq") as YAMLSeq;
        const elem = name === "" ? new Scalar(value) : mapWith(name, new Scalar(value));
        seq.items.push(elem);
        next = itemSlot(seq, seq.items.length - 1);
      }
    } else if (parseIndex(part) !== undefined || part === "-" || part === "*") {
      next = step(slot.node, part);
    } else {
      if (!isMap(slot.node) && !isNull(slot.node)) {
        throw new PathError(`wrong node kind: expected MappingNode but got ${kindName(slot.node)}`);
      }
      const map = ensureCollection(slot, "map") as YAMLMap;
      next = fieldSlot(map, part);
      if (!next) {
        map.items.push(new Pair(new Scalar(part), newNode(createKind)));
        next = fieldSlot(map, part);
      }
    }
    if (!next) return undefined;
    slot = next;
  }
  return slot;
}

function kindForNext(next: string | undefined, last: NodeKind): NodeKind {
  if (next === undefined || next === "") return last;
  if (isListIndex(next) || (parseIndex(next) ?? -1) >= 0) return "seq";
  return "map";
}

function newNode(kind: NodeKind): unknown {
  if (kind === "map") return new YAMLMap();
  if (kind === "seq") return new YAMLSeq();
  return new Scalar(null);
}

function mapWith(key: string, value: Scalar): YAMLMap {
  const map = new YAMLMap();
  map.items.push(new Pair(new Scalar(key), value));
  return map;
}

/** The collection in a slot, turning a null there into an empty one of the kind wanted. */
function ensureCollection(slot: Slot, kind: "map" | "seq"): unknown {
  if (isNull(slot.node)) {
    const created = newNode(kind);
    slot.replace(created);
    return created;
  }
  if (kind === "seq" && !isSeq(slot.node)) {
    throw new PathError(`wrong node kind: expected SequenceNode but got ${kindName(slot.node)}`);
  }
  return slot.node;
}

/**
 * kyaml's `PathMatcher`: every node the path reaches; `*` takes every element of a sequence and
 * `[name=regex]` every element whose field matches the (unanchored) regular expression.
 */
export function matchPath(root: Slot, parts: readonly string[]): Slot[] {
  if (parts.length === 0) return [root];
  const [part, ...rest] = parts as [string, ...string[]];
  const node = root.node;
  const index = parseIndex(part);
  if (index !== undefined) {
    const items = elementsOf(node);
    if (items.length < index + 1) {
      throw new PathError(`index ${index} specified but only ${items.length} elements found`);
    }
    return matchPath(itemSlot(node as YAMLSeq, index), rest);
  }
  if (isListIndex(part)) {
    const [name, pattern] = splitIndexNameValue(part);
    const regex = compileRegex(pattern);
    const items = elementsOf(node);
    const out: Slot[] = [];
    items.forEach((item, i) => {
      if (name === "") {
        if (regex.test(textOf(item))) out.push(itemSlot(node as YAMLSeq, i));
        return;
      }
      if (!isMap(item)) return;
      const field = item.get(name, true);
      if (field === undefined || field === null || !regex.test(textOf(field))) return;
      out.push(...matchPath(itemSlot(node as YAMLSeq, i), rest));
    });
    return out;
  }
  if (part === "*") {
    const items = elementsOf(node);
    return items.flatMap((_, i) => matchPath(itemSlot(node as YAMLSeq, i), rest));
  }
  if (!isMap(node)) return [];
  const field = fieldSlot(node, part);
  return field ? matchPath(field, rest) : [];
}

function compileRegex(pattern: string): GoRegexp {
  try {
    return compileGoRegexp(pattern);
  } catch (err) {
    throw new PathError((err as Error).message);
  }
}
