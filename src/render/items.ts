import { type Document, isMap, isScalar, type Node, YAMLMap } from "yaml";
import {
  ANNOTATION,
  annotationsToSet,
  appendAfterFoot,
  dropAnnotationsField,
  LEGACY_ANNOTATION,
  TRANSIENT_ANNOTATIONS,
} from "../kpt/annotations.js";
import type { KptPackage, ResourceFile } from "../kpt/package.js";
import { getAnnotation, kindOf, nameOf, namespaceOf, pathAnnotation } from "../kpt/resource.js";
import type { FileTree } from "../kpt/tree.js";
import { normalizeComments } from "../kpt/yaml/comments/apply.js";
import { headComment, setHeadComment, setTrailingComment, trailingComment } from "../kpt/yaml/comments.js";
import { detectSeqIndent, type SeqIndent } from "../kpt/yaml/format.js";
import type { KptFormDoc } from "../kpt/yaml/kpt-form.js";
import { newScalar, readPair } from "../kpt/yaml/yaml-nodes.js";

/** The pairs of file annotations kpt keeps in step: [current form, `config.kubernetes.io/` form]. */
export const FILE_ANNOTATION_PAIRS = [
  [ANNOTATION.internalPath, ANNOTATION.path],
  [ANNOTATION.internalIndex, ANNOTATION.index],
] as const;

/** The four keys of FILE_ANNOTATION_PAIRS in order: pair p's forms are at 2p and 2p + 1. */
export const FILE_ANNOTATION_KEYS: readonly string[] = FILE_ANNOTATION_PAIRS.flat();

/** What the pipeline keeps about the items it reads and its steps leave (part of StepContext). */
export interface ItemNotes {
  /** Files of documents that are not mappings (they carry no path annotation), for error messages. */
  sources: Map<Document, string>;
  /**
   * Documents holding no folded (`>`) scalar that kpt's trip through a function would restyle: read from
   * text without one, or restyled by a step since, and changed since only by builtins that write none.
   */
  foldedFree: Set<Document>;
  /**
   * The file annotations (FILE_ANNOTATION_KEYS) of each document as they were read into the pipeline,
   * or as the reconciling after a builtin left them: what the next step starts from, unread.
   */
  places: Map<Document, readonly (string | undefined)[]>;
}

/** Notes of a pipeline that has read nothing yet. */
export function newItemNotes(): ItemNotes {
  return { sources: new Map(), foldedFree: new Set(), places: new Map() };
}

/**
 * The resources of one package as kpt hands them to functions: the Kptfile first, then every document
 * of the package's YAML files in path order, each annotated with its file (relative to its own
 * package), its index in that file, its package's absolute directory and its file's sequence style.
 */
export function packageItems(
  pkg: KptPackage,
  tree: FileTree,
  packageDir: string,
  notes?: ItemNotes,
  kept?: ResourceFile[],
): Document[] {
  const prefixLength = pkg.path === "" ? 0 : pkg.path.length + 1;
  const kptfileText = tree.get(pkg.kptfilePath)?.toString("utf8") ?? "";
  const files = [{ path: "Kptfile", text: kptfileText, docs: [pkg.kptfileDoc] }];
  for (const file of pkg.resourceFiles) {
    if (kept && keptAsRead(file)) {
      kept.push(file);
      continue;
    }
    files.push({ path: file.path.slice(prefixLength), text: file.text, docs: file.docs });
  }
  return packageItemsFromFiles(files, packageDir, notes);
}

/**
 * A file that a render running no function on its resources writes as kpt-form.ts formatted it (byte
 * for byte as it was, when already in kpt's form), its documents never read: a file kpt-form.ts
 * formats (what kpt's writer would write of it, told from its text) whose every document is a resource (apiVersion, kind, metadata.name: the KRM check passes) and comes out of
 * the render as it went in — the annotations kpt adds while rendering are taken off again (none of
 * them was there before), no `metadata` or `annotations` to make or to drop, no Config Connector
 * resource for kpt's attribution.
 */
function keptAsRead(file: ResourceFile): boolean {
  return file.kptForm?.docs.every(leftAsRead) === true;
}

function leftAsRead(doc: KptFormDoc): boolean {
  const { apiVersion, annotations } = doc;
  if (!apiVersion || !doc.kind || !doc.name || apiVersion.includes(".cnrm.")) return false;
  if (doc.metadata !== "map") return false;
  return annotations === "absent" || (annotations !== "other" && !annotations.some((k) => TRANSIENT.has(k)));
}

/** Items from plain files (kpt fn eval): paths relative to the directory evaluated. */
export function packageItemsFromFiles(
  files: readonly { path: string; text: string; docs: Document[] }[],
  packageDir: string,
  notes?: ItemNotes,
): Document[] {
  const items: Document[] = [];
  for (const file of files) {
    // A folded scalar starts with `>`: text without one has none.
    const foldedFree = notes !== undefined && !file.text.includes(">");
    file.docs.forEach((doc, index) => {
      items.push(prepare(doc, file.text, file.path, index, packageDir));
      if (!notes) return;
      if (!isMap(doc.contents)) notes.sources.set(doc, file.path);
      else notes.places.set(doc, [file.path, file.path, String(index), String(index)]);
      if (foldedFree) notes.foldedFree.add(doc);
    });
  }
  return items;
}

function prepare(doc: Document, text: string, path: string, index: number, packageDir: string): Document {
  normalizeComments(doc, text);
  const seqIndent = detectSeqIndent(doc, text);
  if (!isMap(doc.contents)) return doc;
  markUserIds(doc);
  const i = String(index);
  setKptAnnotations(doc, [
    [ANNOTATION.index, i],
    [ANNOTATION.path, path],
    [ANNOTATION.internalIndex, i],
    [ANNOTATION.packagePath, packageDir],
    [ANNOTATION.internalPath, path],
    [ANNOTATION.seqIndent, seqIndent],
  ]);
  return doc;
}

/** Sets an annotation as kpt does: a single-quoted value, appended to `metadata.annotations`. */
export function setKptAnnotation(doc: Document, key: string, value: string): void {
  setKptAnnotations(doc, [[key, value]]);
}

/** setKptAnnotation of each entry in turn, `metadata.annotations` looked up once. */
function setKptAnnotations(doc: Document, entries: readonly (readonly [string, string])[]): void {
  if (!isMap(doc.contents)) return;
  const root = doc.contents as YAMLMap;
  let meta = root.get("metadata", true) as unknown;
  if (!isMap(meta)) {
    meta = new YAMLMap();
    root.set("metadata", meta);
  }
  // kyaml's SetAnnotation clears an empty `annotations` field (`{}`, no value) and appends a new one
  const annotations = annotationsToSet(meta as YAMLMap, false);
  for (const [key, value] of entries) {
    const scalar = newScalar(value);
    scalar.type = "QUOTE_SINGLE";
    // As `set(key, scalar)`, which adds `new Pair(key, scalar)`.
    // a new key after the map's foot goes below it, after a blank line (as kyaml's field setter appends)
    if (trailingComment(annotations) && !annotations.has(key)) appendAfterFoot(annotations, key, scalar);
    else annotations.add(readPair(key, scalar), true);
  }
}

/**
 * kpt's ids for matching a function's output to its input: set before each run of a process function.
 * The annotations-migration id only where kpt runs the function through a kyaml pipeline (mutators,
 * fn eval), not for a validator (kpt v1.0.0-beta.56 hands it only the two ids).
 */
export function assignIds(items: readonly Document[], migrationId = true): void {
  items.forEach((doc, i) => {
    if (migrationId) setKptAnnotation(doc, ANNOTATION.annotationsMigrationId, String(i));
    setKptAnnotation(doc, ANNOTATION.internalId, String(i + 1));
    setKptAnnotation(doc, LEGACY_ANNOTATION.id, String(i + 1));
  });
}

export function clearIds(items: readonly Document[]): void {
  for (const doc of items) {
    deleteAnnotations(doc, [ANNOTATION.annotationsMigrationId, ANNOTATION.internalId, LEGACY_ANNOTATION.id]);
  }
}

/** Marks an id annotation the file itself holds (a property of the pair: it goes where the pair goes). */
const USER_ID = Symbol("porchlight.userId");

/**
 * The id annotations a file itself holds (`config.k8s.io/id`, `internal.config.kubernetes.io/id`: a
 * function's test fixture, a resource kpt wrote out with them): written back where no function ran,
 * as kpt writes them. A function's run takes them, as kpt's does: its ids are set over them and then
 * taken away.
 */
function markUserIds(doc: Document): void {
  const annotations = doc.getIn(["metadata", "annotations"], true);
  if (!isMap(annotations)) return;
  for (const pair of (annotations as YAMLMap).items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (key === ANNOTATION.internalId || key === LEGACY_ANNOTATION.id)
      (pair as { [USER_ID]?: boolean })[USER_ID] = true;
  }
}

function userId(pair: unknown): boolean {
  return (pair as { [USER_ID]?: boolean })[USER_ID] === true;
}

/** Removes the annotations kpt only uses while rendering; an annotations map left empty goes too. */
export function stripTransient(doc: Document): void {
  deleteAnnotations(doc, TRANSIENT_ANNOTATIONS);
}

function deleteAnnotations(doc: Document, keys: readonly string[]): void {
  const annotations = doc.getIn(["metadata", "annotations"], true);
  if (!isMap(annotations)) return;
  const drop = new Set(keys);
  keepPairs(annotations as YAMLMap, (key) => !drop.has(key));
  if (annotations.items.length === 0) dropAnnotationsField(doc.getIn(["metadata"], true) as YAMLMap);
}

/**
 * Keeps the entries of `map` whose key `keep` accepts. yaml.v3 holds a mapping's foot comment on its
 * last key: where kpt removes that key (its own annotations, last after a function wrote them back),
 * the comment goes with it, as the foot a function's output put after them does in kpt.
 */
function keepPairs(map: YAMLMap, keep: (key: string, pair: unknown) => boolean): void {
  const items = map.items;
  const kept: typeof items = [];
  // the feet of entries before a removed key, held above it with a blank line (appended after a foot)
  let feet: string[] = [];
  for (const pair of items) {
    const key = pair.key as Node | null;
    const before = isScalar(key) ? headComment(key) : undefined;
    if (keep(isScalar(key) ? String(key.value) : String(key), pair)) {
      if (feet.length > 0 && isScalar(key)) setHeadComment(key, `${feet.join("\n")}\n${before ?? ""}`);
      feet = [];
      kept.push(pair);
    } else if (before?.endsWith("\n")) feet.push(before.slice(0, -1));
  }
  if (kept.length === items.length) return;
  if (trailingComment(map) && kept[kept.length - 1] !== items[items.length - 1])
    setTrailingComment(map, undefined);
  const foot = trailingComment(map);
  if (feet.length > 0) setTrailingComment(map, [...feet, ...(foot ? [foot] : [])].join("\n"));
  map.items = kept;
}

/** What kpt's transient annotations of an item said, read (and removed) in one pass over its annotations. */
export interface ItemPlace {
  path?: string;
  index?: number;
  packagePath?: string;
  seqIndent: SeqIndent;
}

const TRANSIENT = new Set(TRANSIENT_ANNOTATIONS);

export function takePlace(doc: Document): ItemPlace {
  const place: ItemPlace = { seqIndent: "compact" };
  const annotations = doc.getIn(["metadata", "annotations"], true);
  if (!isMap(annotations)) return place;
  const found = new Map<string, string>();
  let transient = false;
  for (const pair of (annotations as YAMLMap).items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!TRANSIENT.has(key) || userId(pair)) continue;
    transient = true;
    const v = isScalar(pair.value) ? pair.value.value : pair.value;
    if (v !== null && v !== undefined) found.set(key, String(v));
  }
  place.path =
    found.get(ANNOTATION.internalPath) ?? found.get(ANNOTATION.path) ?? found.get(LEGACY_ANNOTATION.path);
  const rawIndex =
    found.get(ANNOTATION.internalIndex) ?? found.get(ANNOTATION.index) ?? found.get(LEGACY_ANNOTATION.index);
  const index = rawIndex === undefined ? Number.NaN : Number(rawIndex);
  if (Number.isInteger(index)) place.index = index;
  place.packagePath = found.get(ANNOTATION.packagePath);
  if (found.get(ANNOTATION.seqIndent) === "wide") place.seqIndent = "wide";
  if (transient) keepPairs(annotations as YAMLMap, (key, pair) => !TRANSIENT.has(key) || userId(pair));
  // kyaml's writer clears an empty annotations map, then an empty metadata (a Kustomization may have none).
  if ((annotations as YAMLMap).items.length === 0) {
    const meta = doc.getIn(["metadata"], true) as YAMLMap;
    dropAnnotationsField(meta);
    if (meta.items.length === 0) (doc.contents as YAMLMap).delete("metadata");
  }
  return place;
}

export function itemSeqIndent(doc: Document): SeqIndent {
  return getAnnotation(doc, ANNOTATION.seqIndent) === "wide" ? "wide" : "compact";
}

/** Where kpt puts a resource a function created without a path: `[namespace/]kind_name.yaml`. */
function defaultPath(doc: Document): string {
  const file = `${kindOf(doc).toLowerCase()}_${nameOf(doc)}.yaml`;
  const ns = namespaceOf(doc);
  return ns ? `${ns}/${file}` : file;
}

/**
 * After a function ran in the package at `packageDir`: gives resources it created without a path the
 * path kpt gives them, and records the package they belong to.
 */
export function placeNewItems(items: readonly Document[], packageDir: string): void {
  for (const doc of items) {
    if (!isMap(doc.contents)) continue;
    const path = pathAnnotation(doc);
    if (path === undefined) {
      const p = defaultPath(doc);
      setKptAnnotation(doc, ANNOTATION.internalPath, p);
      setKptAnnotation(doc, ANNOTATION.path, p);
    } else if (getAnnotation(doc, ANNOTATION.internalPath) === undefined) {
      setKptAnnotation(doc, ANNOTATION.internalPath, path);
    }
    if (getAnnotation(doc, ANNOTATION.packagePath) === undefined) {
      setKptAnnotation(doc, ANNOTATION.packagePath, packageDir);
    }
  }
}
