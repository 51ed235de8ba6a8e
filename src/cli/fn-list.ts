import type { Document } from "yaml";
import { krmIgnoredInTree } from "../kpt/krmignore.js";
import { indexAnnotation, pathAnnotation } from "../kpt/resource.js";
import { parseResourceList } from "../kpt/resourcelist.js";
import { type FileTree, fileOf } from "../kpt/tree.js";
import { formatDocuments } from "../kpt/yaml/format.js";
import { isYamlFileName, parseYamlFile } from "../kpt/yaml/yamlfile.js";
import { itemSeqIndent, packageItemsFromFiles, stripTransient } from "../render/items.js";
import { itemsForOutput } from "../render/write.js";

/**
 * The resources of a directory as kpt's package reader gives them (`kpt fn source`, `fn eval`): every
 * YAML file and Kptfile not hidden by a `.krmignore`, in path order, each document annotated with its
 * file and index relative to the directory.
 */
export function itemsOfTree(tree: FileTree): Document[] {
  const ignored = krmIgnoredInTree(tree);
  const files = [...tree.keys()]
    .filter((path) => isYamlFileName(path) && !ignored(path))
    .sort()
    .map((path) => {
      const text = fileOf(tree, path).toString("utf8");
      return { path, text, docs: parseYamlFile(text, path).docs };
    });
  const items = packageItemsFromFiles(files, "");
  return itemsForOutput(items, new Map([["", ""]]), "");
}

/**
 * A ResourceList (`kpt fn sink`, `fn eval -`) as files: each item goes to the file its path annotation
 * names (`stdin_<n>.yaml` without one), in index order, formatted as kpt writes files.
 */
export function resourceListToTree(text: string, source: string): FileTree {
  const list = parseResourceList(text, source);
  const byFile = new Map<string, { index: number; order: number; doc: Document }[]>();
  list.items.forEach((doc, i) => {
    const path = pathAnnotation(doc) ?? `stdin_${i}.yaml`;
    const docs = byFile.get(path) ?? [];
    docs.push({ index: indexAnnotation(doc) ?? docs.length, order: i, doc });
    byFile.set(path, docs);
  });
  const tree: FileTree = new Map();
  for (const [path, entries] of byFile) {
    entries.sort((a, b) => a.index - b.index || a.order - b.order);
    const docs = entries.map((e) => e.doc);
    const styles = docs.map(itemSeqIndent);
    for (const d of docs) stripTransient(d);
    tree.set(path, Buffer.from(formatDocuments(docs, styles)));
  }
  return tree;
}
