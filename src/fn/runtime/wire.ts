import type { Document } from "yaml";
import { formatResourceList, parseResourceList } from "../../kpt/resourcelist.js";
import { normalizeComments } from "../../kpt/yaml/comments/apply.js";
import type { ResourceList } from "../types.js";

/** The ResourceList as kpt writes it to a function's stdin (kpt's own writer, shared with the CLI). */
export function writeResourceList(list: { items: readonly Document[]; functionConfig?: Document }): string {
  return formatResourceList({ items: [...list.items], functionConfig: list.functionConfig, results: [] });
}

/** Reads a function's stdout. Item comments are placed as kpt (yaml.v3) reads them. */
export function readResourceList(text: string, source: string): ResourceList {
  const list = parseResourceList(text, source);
  for (const item of list.items) normalizeComments(item, text, { listItem: true });
  return list;
}
