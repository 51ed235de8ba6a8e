import { stringify } from "yaml";
import type { KrmItem } from "../../fn/types.js";
import { ANNOTATION, LEGACY_ANNOTATION } from "../../kpt/annotations.js";
import { detectSeqIndent, formatDocuments, type SeqIndent } from "../../kpt/format.js";
import {
  deleteAnnotation,
  getAnnotation,
  indexAnnotation,
  pathAnnotation,
  setAnnotation,
} from "../../kpt/resource.js";
import { formatResourceList, parseResourceList } from "../../kpt/resourcelist.js";
import type { FileTree } from "../../kpt/tree.js";
import { parseYamlFile } from "../../kpt/yamlfile.js";
import { RpkgError } from "./errors.js";

/** Porch writes this file next to the package on `rpkg pull`; `rpkg push` reads it back and drops it. */
export const REVISION_METADATA_FILE = ".KptRevisionMetadata";

/** The files a ResourceList carries, as porchctl chooses them: YAML files, the Kptfile, the metadata. */
export function isResourceFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return /\.ya?ml$/.test(base) || base === "Kptfile" || base === REVISION_METADATA_FILE;
}

/** The revision metadata Porch writes: who the files belong to, and the commit they were read at. */
export function revisionMetadata(meta: {
  name: string;
  namespace: string;
  annotations: Record<string, string>;
}): string {
  return stringify(
    {
      apiVersion: "porch.kpt.dev/v1alpha1",
      kind: "PackageRevisionResources",
      metadata: { name: meta.name, namespace: meta.namespace, annotations: meta.annotations },
    },
    { lineWidth: 0 },
  );
}

/** Reads an annotation back from `.KptRevisionMetadata`, if the file is there and has it. */
export function metadataAnnotation(tree: FileTree, key: string): string | undefined {
  const bytes = tree.get(REVISION_METADATA_FILE);
  if (!bytes) return undefined;
  const { docs } = parseYamlFile(bytes.toString("utf8"), REVISION_METADATA_FILE);
  const value = docs[0]?.getIn(["metadata", "annotations", key]);
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/**
 * A package's files as a ResourceList, the way `porchctl rpkg pull` prints one: each document of each
 * YAML file an item, annotated with its file and index (current and internal forms), files in order,
 * and the sequence indentation it was written with (`internal.config.kubernetes.io/seqindent`, as
 * kpt's `fn source` writes it), so a push of the list writes lists back as they were.
 */
export function treeToResourceList(tree: FileTree): string {
  const items: KrmItem[] = [];
  for (const path of [...tree.keys()].filter(isResourceFile).sort()) {
    const text = (tree.get(path) as Buffer).toString("utf8");
    const { docs } = parseYamlFile(text, path);
    docs.forEach((doc, index) => {
      const seqIndent = detectSeqIndent(doc, text);
      for (const key of [ANNOTATION.path, ANNOTATION.internalPath]) setAnnotation(doc, key, path);
      for (const key of [ANNOTATION.index, ANNOTATION.internalIndex]) setAnnotation(doc, key, String(index));
      setAnnotation(doc, ANNOTATION.seqIndent, seqIndent);
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
export function resourceListToTree(text: string, source: string): FileTree {
  const list = parseResourceList(text, source);
  const files = new Map<string, { index: number; order: number; doc: KrmItem; style: SeqIndent }[]>();
  list.items.forEach((doc, order) => {
    const path = pathAnnotation(doc);
    if (!path) {
      const kind = doc.get("kind") ?? "item";
      const name = doc.getIn(["metadata", "name"]) ?? `#${order}`;
      throw new RpkgError(
        `${source}: ${String(kind)} ${String(name)} has no ${ANNOTATION.path} annotation, so it belongs to no file; add one (e.g. resources.yaml)`,
      );
    }
    const index = indexAnnotation(doc) ?? order;
    const style: SeqIndent = getAnnotation(doc, ANNOTATION.seqIndent) === "wide" ? "wide" : "compact";
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
