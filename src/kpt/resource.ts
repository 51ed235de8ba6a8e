import { Document, isMap, isScalar, isSeq, type Pair, parseDocument, type Scalar, type YAMLMap } from "yaml";
import { ANNOTATION, LEGACY_ANNOTATION } from "./annotations.js";
import { NODE_TYPE, PAIR_KIND, SCALAR_KIND } from "./yaml/yaml-nodes.js";

/**
 * A node's kind mark (yaml-nodes.ts), read inline by pairValue and firstValues: what every step reads of
 * every resource goes through them, mostly before V8 optimises them, where each isPair or isScalar is a
 * call.
 */
type Marked = { [NODE_TYPE]?: symbol };

export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * The node at `path`, as `doc.getIn(path, true)` finds it. Through mappings by string keys (a resource's
 * fields, its annotations: what every pipeline step reads of every resource) it walks the pairs itself,
 * without the copies of the path `getIn` makes at each level.
 */
export function nodeIn(doc: Document, path: readonly (string | number)[]): unknown {
  let node: unknown = doc.contents;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (typeof key !== "string" || isSeq(node)) return doc.getIn(path, true);
    if (!isMap(node)) return undefined;
    node = pairValue(node.items, key);
  }
  return node;
}

/**
 * The value of the first pair whose key is `key` (a scalar holding it, or the string itself). An index
 * loop: most of a short run's code is not optimised, and there `for…of` makes an object per pair.
 */
export function pairValue(pairs: readonly unknown[], key: string): unknown {
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i];
    // isPair and isScalar, inline (as in firstValues).
    if (typeof pair !== "object" || pair === null || (pair as Marked)[NODE_TYPE] !== PAIR_KIND) continue;
    const k = (pair as Pair).key;
    if (
      k === key ||
      (typeof k === "object" &&
        k !== null &&
        (k as Marked)[NODE_TYPE] === SCALAR_KIND &&
        (k as Scalar).value === key)
    )
      return (pair as Pair).value;
  }
  return undefined;
}

/** A scalar's value as a string; undefined for anything else, or a null value (as getString reads it). */
function stringOf(node: unknown): string | undefined {
  if (!isScalar(node) || node.value === null || node.value === undefined) return undefined;
  return String(node.value);
}

/**
 * What every builtin reads of every resource, found in one walk of its top-level pairs and one of its
 * metadata's: as apiVersionOf, kindOf, nameOf and namespaceOf read them ("" when absent), and the
 * metadata mapping with its annotations and labels mappings (undefined when absent or not mappings).
 * A snapshot: a change to the resource after it is not seen.
 */
export interface ResourceHead {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  metadata: YAMLMap | undefined;
  annotations: YAMLMap | undefined;
  labels: YAMLMap | undefined;
}

const HEAD_KEYS = ["apiVersion", "kind", "metadata"];

const METADATA_KEYS = ["name", "namespace", "annotations", "labels"];

export function resourceHead(doc: Document): ResourceHead {
  const head: ResourceHead = {
    apiVersion: "",
    kind: "",
    name: "",
    namespace: "",
    metadata: undefined,
    annotations: undefined,
    labels: undefined,
  };
  const root = doc.contents;
  if (!isMap(root)) return head;
  // Indexed, not destructured: destructuring runs the iterator protocol (an iterator and a result
  // object per element) wherever the code is not optimised, and every step reads every head.
  const top = firstValues(root.items, HEAD_KEYS);
  head.apiVersion = stringOf(top[0]) ?? "";
  head.kind = stringOf(top[1]) ?? "";
  const metadata = top[2];
  if (!isMap(metadata)) return head;
  head.metadata = metadata;
  const meta = firstValues(metadata.items, METADATA_KEYS);
  head.name = stringOf(meta[0]) ?? "";
  head.namespace = stringOf(meta[1]) ?? "";
  if (isMap(meta[2])) head.annotations = meta[2];
  if (isMap(meta[3])) head.labels = meta[3];
  return head;
}

/**
 * The value of the first pair of each of `keys` (at most 31), as pairValue finds it, in one walk of the
 * pairs rather than one per key; undefined where a key is absent.
 */
function firstValues(pairs: readonly unknown[], keys: readonly string[]): unknown[] {
  const out: unknown[] = new Array(keys.length).fill(undefined);
  const all = (1 << keys.length) - 1;
  let found = 0;
  for (let p = 0; p < pairs.length && found !== all; p++) {
    const pair = pairs[p];
    // isPair and isScalar, inline.
    if (typeof pair !== "object" || pair === null || (pair as Marked)[NODE_TYPE] !== PAIR_KIND) continue;
    const k = (pair as Pair).key;
    const name =
      typeof k === "object" && k !== null && (k as Marked)[NODE_TYPE] === SCALAR_KIND
        ? (k as Scalar).value
        : k;
    if (typeof name !== "string") continue;
    const i = keys.indexOf(name);
    // The first pair of a key wins.
    if (i < 0 || found & (1 << i)) continue;
    found |= 1 << i;
    out[i] = (pair as Pair).value;
  }
  return out;
}

/** An annotation of a resource's annotations mapping, as getAnnotation reads it. */
export function annotationIn(annotations: YAMLMap | undefined, key: string): string | undefined {
  return annotations ? stringOf(pairValue(annotations.items, key)) : undefined;
}

/** A plain string at `path`, or undefined when absent or not a scalar. Numbers and booleans are stringified. */
export function getString(doc: Document, path: readonly (string | number)[]): string | undefined {
  const node = nodeIn(doc, path);
  if (!isScalar(node) || node.value === null || node.value === undefined) return undefined;
  return String(node.value);
}

// The paths every step reads of every resource, made once (a literal is a new array at each call).
const API_VERSION = ["apiVersion"] as const;
const KIND = ["kind"] as const;
const NAME = ["metadata", "name"] as const;
const NAMESPACE = ["metadata", "namespace"] as const;
const ANNOTATIONS = ["metadata", "annotations"] as const;

export function apiVersionOf(doc: Document): string {
  return getString(doc, API_VERSION) ?? "";
}

export function kindOf(doc: Document): string {
  return getString(doc, KIND) ?? "";
}

export function nameOf(doc: Document): string {
  return getString(doc, NAME) ?? "";
}

export function namespaceOf(doc: Document): string {
  return getString(doc, NAMESPACE) ?? "";
}

/** True when the document is a mapping with apiVersion and kind: a KRM resource. */
export function isKrm(doc: Document): boolean {
  return isMap(doc.contents) && apiVersionOf(doc) !== "" && kindOf(doc) !== "";
}

export function getAnnotations(doc: Document): Record<string, string> {
  return stringMap(doc.getIn(["metadata", "annotations"], true));
}

export function getLabels(doc: Document): Record<string, string> {
  return stringMap(doc.getIn(["metadata", "labels"], true));
}

function stringMap(node: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isMap(node)) return out;
  for (const pair of (node as YAMLMap).items) {
    const k = isScalar(pair.key) ? pair.key.value : pair.key;
    const v = isScalar(pair.value) ? pair.value.value : pair.value;
    if (k !== null && k !== undefined) out[String(k)] = v === null || v === undefined ? "" : String(v);
  }
  return out;
}

export function getAnnotation(doc: Document, key: string): string | undefined {
  const annotations = nodeIn(doc, ANNOTATIONS);
  // Through a mapping (always, but for a resource that is not one) without building the whole path.
  if (!isMap(annotations)) return getString(doc, ["metadata", "annotations", key]);
  const node = pairValue(annotations.items, key);
  if (!isScalar(node) || node.value === null || node.value === undefined) return undefined;
  return String(node.value);
}

/**
 * Several annotations at once, in the order of `keys` (undefined where absent or not a scalar, as
 * getAnnotation): one walk of `metadata.annotations` rather than one per key, for the code that reads
 * the same few annotations of every resource at every pipeline step.
 */
export function getAnnotationsOf(doc: Document, keys: readonly string[]): (string | undefined)[] {
  const map = nodeIn(doc, ANNOTATIONS);
  if (!isMap(map)) return new Array(keys.length).fill(undefined);
  return firstValues(map.items, keys).map(stringOf);
}

/** Sets an annotation, creating `metadata.annotations` when absent; an existing key keeps its place. */
export function setAnnotation(doc: Document, key: string, value: string): void {
  setStringIn(doc, ["metadata", "annotations", key], value);
}

/**
 * Sets a string scalar. An existing scalar keeps its node (so its comments and quote style stay);
 * a new one is created.
 */
function setStringIn(doc: Document, path: readonly (string | number)[], value: string): void {
  const node = doc.getIn(path, true);
  if (isScalar(node)) {
    node.value = value;
    return;
  }
  doc.setIn(path, doc.createNode(value));
}

/** Removes an annotation; removes `metadata.annotations` too when it becomes empty. */
export function deleteAnnotation(doc: Document, key: string): void {
  deleteKeyIn(doc, ["metadata", "annotations"], key);
}

function deleteKeyIn(doc: Document, mapPath: readonly (string | number)[], key: string): void {
  const map = doc.getIn(mapPath, true);
  if (!isMap(map)) return;
  map.delete(key);
  if (map.items.length === 0) doc.deleteIn(mapPath);
}

/** The file a resource belongs to (relative, forward slashes), reading the current, internal and legacy forms. */
export function pathAnnotation(doc: Document): string | undefined {
  return (
    getAnnotation(doc, ANNOTATION.internalPath) ??
    getAnnotation(doc, ANNOTATION.path) ??
    getAnnotation(doc, LEGACY_ANNOTATION.path)
  );
}

/** The resource's document index within its file, reading the current, internal and legacy forms. */
export function indexAnnotation(doc: Document): number | undefined {
  const raw =
    getAnnotation(doc, ANNOTATION.internalIndex) ??
    getAnnotation(doc, ANNOTATION.index) ??
    getAnnotation(doc, LEGACY_ANNOTATION.index);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** kpt's meaning: a resource is local config when the annotation is present and not "false". */
export function isLocalConfig(doc: Document): boolean {
  const v = getAnnotation(doc, ANNOTATION.localConfig);
  return v !== undefined && v !== "false";
}

/** A plain-JS view of the document (a copy; editing it does not change the document). */
export function toPlain(doc: Document): unknown {
  return doc.toJS({ maxAliasCount: -1 });
}

/** Parses one YAML document as a resource (for tests and function configs given inline). */
export function parseResource(text: string): Document {
  return parseDocument(text, { keepSourceTokens: false });
}

export { Document };
