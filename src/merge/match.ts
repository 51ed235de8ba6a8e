import { isMap, isPair, isScalar, Scalar, type YAMLMap } from "yaml";
import {
  annotationsToSet,
  appendAfterFoot,
  MERGE_CLEARED_ANNOTATIONS,
  WRITER_CLEARED_ANNOTATIONS,
} from "../kpt/annotations.js";
import { apiGroup } from "../kpt/resource.js";
import { lineComment, setLineComment } from "../kpt/yaml/comments.js";
import { field, fieldPair, isTaggedNull, type MaybeNode, scalarText } from "./nodes.js";
import type { YamlDoc } from "./yamldoc.js";

/**
 * Resource identity for the 3-way merge, as kpt matches resources: group, kind, namespace and name,
 * and the file the resource is in. The namespace and name come from the `# kpt-merge: ns/name`
 * comment on `metadata` when present — kpt writes it on every resource at `pkg get` and `pkg update`
 * with the upstream's namespace and name — so a resource renamed locally (a name prefix, another
 * namespace) still matches its upstream.
 */

const MERGE_COMMENT_PREFIX = "kpt-merge:";
export const UPSTREAM_IDENTIFIER = "internal.kpt.dev/upstream-identifier";

/** A resource of a package as the merge holds it. */
export interface PkgResource {
  /** File path relative to the package directory. */
  path: string;
  /** Position of the document in its file. */
  index: number;
  y: YamlDoc;
}

function root(doc: YamlDoc): YAMLMap | undefined {
  return isMap(doc.doc.contents) ? doc.doc.contents : undefined;
}

function metadataPair(doc: YamlDoc) {
  const r = root(doc);
  return r ? fieldPair(r, "metadata") : undefined;
}

/** The comment on the `metadata:` key line, if any. */
export function metadataComment(doc: YamlDoc): string {
  const pair = metadataPair(doc);
  if (!pair || !isPair(pair)) return "";
  const key = pair.key as Scalar | null;
  return key ? (lineComment(key) ?? "") : "";
}

/** `[namespace, name]` from a `kpt-merge: ns/name` comment, or undefined. */
function nsAndNameForMerge(comment: string): [string, string] | undefined {
  const c = comment.trim().replace(/^#/, "").trim();
  if (!c.startsWith(MERGE_COMMENT_PREFIX)) return undefined;
  const rest = c.slice(MERGE_COMMENT_PREFIX.length).trim();
  const slash = rest.indexOf("/");
  if (slash < 0) return undefined;
  return [rest.slice(0, slash), rest.slice(slash + 1)];
}

/** A field as kyaml reads it into its resource metadata (a Go string): a null (`null`, `~`) is empty. */
function goString(node: MaybeNode): string {
  return isTaggedNull(node) ? "" : (scalarText(node) ?? "");
}

function meta(doc: YamlDoc, key: string): string {
  return goString(field(field(root(doc), "metadata"), key));
}

function top(doc: YamlDoc, key: string): string {
  return goString(field(root(doc), key));
}

/** The key two resources match on (group, kind, merge namespace and name, file). */
export function matchKey(r: PkgResource): string {
  const nsName = nsAndNameForMerge(metadataComment(r.y));
  const ns = nsName ? nsName[0] : meta(r.y, "namespace");
  const name = nsName ? nsName[1] : meta(r.y, "name");
  return JSON.stringify([apiGroup(top(r.y, "apiVersion")), top(r.y, "kind"), ns, name, r.path]);
}

/**
 * What kpt does to every resource of a package before and after a merge: adds the
 * `# kpt-merge: ns/name` comment when missing, and (re)writes the upstream-identifier annotation
 * from it (`group|Kind|namespace|name`, namespace "default" when empty).
 */
export function addMergeComment(doc: YamlDoc): void {
  const r = root(doc);
  if (!r) return;
  const name = meta(doc, "name");
  const namespace = meta(doc, "namespace");
  const labels = field(field(r, "metadata"), "labels");
  const hasLabels = isMap(labels) && labels.items.length > 0;
  if (name === "" && namespace === "" && !hasLabels) return;
  const pair = metadataPair(doc);
  if (!pair || !isMap(pair.value)) return;
  const key = pair.key as MaybeNode;
  if (!(key instanceof Scalar)) return;
  if (!(lineComment(key) ?? "").includes(MERGE_COMMENT_PREFIX))
    setLineComment(key, `# ${MERGE_COMMENT_PREFIX} ${namespace}/${name}`);
  const nsName = nsAndNameForMerge(lineComment(key) ?? "");
  const idNs = (nsName ? nsName[0] : namespace) || "default";
  const idName = nsName ? nsName[1] : name;
  const value = `${apiGroup(top(doc, "apiVersion"))}|${top(doc, "kind")}|${idNs}|${idName}`;
  setAnnotationQuoted(pair.value, UPSTREAM_IDENTIFIER, value);
}

function setAnnotationQuoted(metadata: YAMLMap, key: string, value: string): void {
  const annotations = annotationsToSet(metadata, true);
  const node = new Scalar(value);
  node.type = "QUOTE_SINGLE";
  const pair = fieldPair(annotations, key);
  if (pair) {
    // kyaml's field setter gives a value equal to the one there that one's style (its comments go)
    const old = pair.value;
    if (isScalar(old) && scalarText(old) === value && old.type) node.type = old.type;
    pair.value = node;
    return;
  }
  appendAfterFoot(annotations, key, node);
}

/**
 * kpt's writer clears its reader's annotations from every resource it writes (WRITER_CLEARED_ANNOTATIONS);
 * an update clears its merge's too (MERGE_CLEARED_ANNOTATIONS).
 */
export function clearWriterAnnotations(
  doc: YamlDoc,
  cleared: readonly string[] = WRITER_CLEARED_ANNOTATIONS,
): void {
  const metadata = field(root(doc), "metadata");
  const annotations = field(metadata, "annotations");
  if (!isMap(metadata) || !isMap(annotations) || annotations.items.length === 0) return;
  const kept = annotations.items.filter((p) => !cleared.includes(scalarText(p.key as MaybeNode) ?? ""));
  if (kept.length === annotations.items.length) return;
  annotations.items = kept;
  // a map the clearing emptied goes, as kyaml clears empty annotations
  if (kept.length === 0)
    metadata.items = metadata.items.filter((p) => scalarText(p.key as MaybeNode) !== "annotations");
}

/** What an update writes: kpt's writer's and its merge's annotations cleared (MERGE_CLEARED_ANNOTATIONS). */
export function clearUpdateAnnotations(doc: YamlDoc): void {
  clearWriterAnnotations(doc, MERGE_CLEARED_ANNOTATIONS);
}
