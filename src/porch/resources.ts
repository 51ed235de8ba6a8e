import { stringify } from "yaml";
import type { KrmItem } from "../fn/types.js";
import { ANNOTATION, LEGACY_ANNOTATION } from "../kpt/annotations.js";
import {
  deleteAnnotation,
  getAnnotation,
  indexAnnotation,
  pathAnnotation,
  setAnnotation,
} from "../kpt/resource.js";
import { formatResourceList, parseResourceList } from "../kpt/resourcelist.js";
import type { FileTree } from "../kpt/tree.js";
import { detectSeqIndent, formatDocuments, type SeqIndent } from "../kpt/yaml/format.js";
import { parseYamlFile } from "../kpt/yaml/yamlfile.js";
import { PorchError } from "./errors.js";

/** Porch writes this file next to the package on `rpkg pull`; `rpkg push` reads it back and drops it. */
export const REVISION_METADATA_FILE = ".KptRevisionMetadata";

/** The files a ResourceList carries, as porchctl chooses them: YAML files, the Kptfile, the metadata. */
export function isResourceFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return /\.ya?ml$/.test(base) || base === "Kptfile" || base === REVISION_METADATA_FILE;
}

/**
 * The revision metadata porchctl writes (`.KptRevisionMetadata`): whose files these are — the
 * revision's name, namespace and uid — and `resourceVersion`, the commit they were read at, which a
 * push checks (a push from a stale pull is refused, as Porch refuses an old resourceVersion).
 */
export function revisionMetadata(meta: {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
}): string {
  return stringify(
    {
      apiVersion: "",
      kind: "KptRevisionMetadata",
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
    },
    { lineWidth: 0 },
  );
}

/**
 * What a pulled package says it was pulled at: nothing without a `.KptRevisionMetadata`; else its
 * `metadata.resourceVersion` (the commit; an older porchlight's `porchlight.dev/commit`), or "" when it
 * names none — which Porch refuses ("resourceVersion must be specified for an update").
 */
export function pulledVersion(tree: FileTree): string | undefined {
  const bytes = tree.get(REVISION_METADATA_FILE);
  if (!bytes) return undefined;
  const { docs } = parseYamlFile(bytes.toString("utf8"), REVISION_METADATA_FILE);
  for (const path of [
    ["metadata", "resourceVersion"],
    ["metadata", "annotations", "porchlight.dev/commit"],
  ]) {
    const value = docs[0]?.getIn(path);
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return "";
}

/**
 * A package's files as a ResourceList, the way `porchctl rpkg pull` prints one: each document of each
 * YAML file an item, annotated with its file and index (current and internal forms), files in order,
 * and, as porchctl's, no sequence indentation annotation: a push of the list takes each file's from the
 * draft (resourceListToTree's `current`).
 */
export function treeToResourceList(tree: FileTree): string {
  const items: KrmItem[] = [];
  for (const path of [...tree.keys()].filter(isResourceFile).sort()) {
    const text = (tree.get(path) as Buffer).toString("utf8");
    const { docs } = parseYamlFile(text, path);
    docs.forEach((doc, index) => {
      for (const key of [ANNOTATION.path, ANNOTATION.internalPath]) setAnnotation(doc, key, path);
      for (const key of [ANNOTATION.index, ANNOTATION.internalIndex]) setAnnotation(doc, key, String(index));
      items.push(doc);
    });
  }
  return formatResourceList({ items, results: [] });
}

const POSITION_ANNOTATIONS = [
  ANNOTATION.path,
  ANNOTATION.internalPath,
  ANNOTATION.index,
  ANNOTATION.internalIndex,
  ANNOTATION.seqIndent,
  ANNOTATION.internalId,
  LEGACY_ANNOTATION.path,
  LEGACY_ANNOTATION.index,
  LEGACY_ANNOTATION.id,
];

/**
 * The files a ResourceList describes: items grouped by their path annotation, in index order, with the
 * position annotations removed. An item without a path is an error naming it.
 */
export function resourceListToTree(text: string, source: string, current?: FileTree): FileTree {
  /** A document's sequence indentation in the draft's file, for an item that does not say its own. */
  const draftStyle = (path: string, index: number): SeqIndent => {
    const bytes = current?.get(path);
    if (!bytes) return "compact";
    try {
      const text = bytes.toString("utf8");
      const doc = parseYamlFile(text, path).docs[index];
      return doc ? detectSeqIndent(doc, text) : "compact";
    } catch {
      return "compact";
    }
  };
  const list = parseResourceList(text, source);
  const files = new Map<string, { index: number; order: number; doc: KrmItem; style: SeqIndent }[]>();
  list.items.forEach((doc, order) => {
    const path = pathAnnotation(doc);
    if (!path) {
      const kind = doc.get("kind") ?? "item";
      const name = doc.getIn(["metadata", "name"]) ?? `#${order}`;
      throw new PorchError(
        "bad-request",
        `${source}: ${String(kind)} ${String(name)} has no ${ANNOTATION.path} annotation, so it belongs to no file; add one (e.g. resources.yaml)`,
      );
    }
    const index = indexAnnotation(doc) ?? order;
    const said = getAnnotation(doc, ANNOTATION.seqIndent);
    const style: SeqIndent = said === "wide" || said === "compact" ? said : draftStyle(path, index);
    for (const key of POSITION_ANNOTATIONS) deleteAnnotation(doc, key);
    const entries = files.get(path) ?? [];
    entries.push({ index, order, doc, style });
    files.set(path, entries);
  });
  const tree: FileTree = new Map();
  for (const [path, entries] of files) {
    entries.sort((a, b) => a.index - b.index || a.order - b.order);
    tree.set(
      path,
      Buffer.from(
        formatDocuments(
          entries.map((e) => e.doc),
          entries.map((e) => e.style),
        ),
      ),
    );
  }
  return tree;
}
