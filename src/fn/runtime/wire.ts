import type { Document, Node } from "yaml";
import { formatResourceList, parseResourceList } from "../../kpt/resourcelist.js";
import { normalizeComments } from "../../kpt/yaml/comments/format-comments.js";
import type { ResourceList } from "../types.js";

/** The ResourceList as kpt writes it to a function's stdin (kpt's own writer, shared with the CLI). */
export function writeResourceList(list: { items: readonly Document[]; functionConfig?: Document }): string {
  return formatResourceList({ items: [...list.items], functionConfig: list.functionConfig, results: [] });
}

/** Reads a function's stdout. Item comments are placed as kpt (yaml.v3) reads them. */
export function readResourceList(text: string, source: string): ResourceList {
  const list = parseResourceList(text, source);
  for (const item of list.items) {
    const range = (item.contents as Node | null)?.range;
    normalizeComments(item, text, { listItem: true, end: range ? afterComments(text, range[1]) : undefined });
  }
  return list;
}

/**
 * Where the comment and blank lines after `offset` (the end of an item's content) end: the start of the
 * next line holding anything else (the next item's `-`, the list's mapping's next key) and its column,
 * or the text's end (column -1). yaml.v3 reads the comments after an item by what follows them there.
 */
function afterComments(text: string, offset: number): { offset: number; col: number } {
  // the line after the one `offset` ends (a node's range may end at the next line's start)
  let start = offset === 0 || text[offset - 1] === "\n" ? offset : text.indexOf("\n", offset) + 1;
  while (start > 0 && start < text.length) {
    const nl = text.indexOf("\n", start);
    const line = text.slice(start, nl < 0 ? text.length : nl);
    const col = line.search(/\S/);
    if (col >= 0 && line[col] !== "#") return { offset: start, col };
    start = nl + 1;
  }
  return { offset: text.length, col: -1 };
}
