import { type Document, isMap, isNode, type Node, type Pair } from "yaml";
import { normalizeComments } from "../../kpt/format-comments.js";
import { formatResourceList, parseResourceList } from "../../kpt/resourcelist.js";
import type { ResourceList } from "../types.js";

/** The ResourceList as kpt writes it to a function's stdin (kpt's own writer, shared with the CLI). */
export function writeResourceList(list: { items: readonly Document[]; functionConfig?: Document }): string {
  return formatResourceList({ items: [...list.items], functionConfig: list.functionConfig, results: [] });
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
