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

/** The commit a pull read (`metadata.resourceVersion`; an older porchlight's `porchlight.dev/commit`). */
export function pulledCommit(tree: FileTree): string | undefined {
  const bytes = tree.get(REVISION_METADATA_FILE);
  if (!bytes) return undefined;
  const { docs } = parseYamlFile(bytes.toString("utf8"), REVISION_METADATA_FILE);
  for (const path of [
    ["metadata", "resourceVersion"],
    ["metadata", "annotations", "porchlight.dev/commit"],
  ]) {
    const value = docs[0]?.getIn(path);
    if (typeof value === "string" && /^[0-9a-f]{40}$/.test(value)) return value;
  }
  return undefined;
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
      // porchctl's list has no seqindent annotation: only a file with wide lists says so, and a push
      // writes it back wide (Porch would make it compact)
      if (seqIndent === "wide") setAnnotation(doc, ANNOTATION.seqIndent, seqIndent);
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
