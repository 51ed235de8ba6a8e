import { type Document, isMap, isNode, type Node, type Pair } from "yaml";
import { formatDocument } from "../../kpt/format.js";
import { normalizeComments } from "../../kpt/format-comments.js";
import { parseResourceList } from "../../kpt/resourcelist.js";
import type { ResourceList } from "../types.js";

/**
 * The ResourceList as kpt writes it to a function's stdin and to `--output stdout`: one YAML document,
 * compact sequences, items in order, then functionConfig when present.
 */
export function writeResourceList(list: { items: readonly Document[]; functionConfig?: Document }): string {
  const parts = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"];
  if (list.items.length === 0) parts.push("items: []\n");
  else {
    parts.push("items:\n");
    for (const item of list.items) parts.push(nest(formatDocument(item, "compact"), "- "));
  }
  if (list.functionConfig) {
    parts.push("functionConfig:\n", nest(formatDocument(list.functionConfig, "compact"), "  "));
  }
  return parts.join("");
}

/** Indents a block by two columns, the first line after `first` (`- ` for a sequence item). */
function nest(text: string, first: string): string {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return `${lines.map((l, i) => (i === 0 ? first + l : l === "" ? "" : `  ${l}`)).join("\n")}\n`;
}

/** Reads a function's stdout. Item comments are placed as kpt (yaml.v3) reads them. */
export function readResourceList(text: string, source: string): ResourceList {
  const list = parseResourceList(text, source);
  for (const item of list.items) {
    normalizeComments(item, text);
    headCommentToFirstKey(item);
  }
  return list;
}

/**
 * `- # comment` over an item lands on the item's mapping; in a file the same comment belongs to the
 * first key. Put it there, so an item reads the same whichever way it came.
 */
function headCommentToFirstKey(doc: Document): void {
  const map = doc.contents;
  if (!isMap(map) || !map.commentBefore) return;
  const first = map.items[0] as Pair | undefined;
  if (!first || !isNode(first.key)) return;
  const key = first.key as Node;
  key.commentBefore = key.commentBefore ? `${map.commentBefore}\n${key.commentBefore}` : map.commentBefore;
  map.commentBefore = undefined;
}
