import { Document, isMap, isNode, isSeq, type LineCounter, type Node, type Pair, type YAMLSeq } from "yaml";
import type { FunctionResult, ResourceList } from "../api/resource-list.js";
import { KptError } from "./errors.js";
import { readFunctionResults } from "./function-results.js";
import { apiVersionOf, kindOf } from "./resource.js";
import { headComment, setHeadComment } from "./yaml/comments.js";
import { commentBlock, formatDocument } from "./yaml/format.js";
import { LinesUp } from "./yaml/text-lines.js";
import { formatFieldPath, locate, pointAt, positionOf } from "./yaml/yaml-locate.js";
import { parseYamlFile } from "./yaml/yamlfile.js";

const RESOURCE_LIST_API_VERSION = "config.kubernetes.io/v1";
const RESOURCE_LIST_KIND = "ResourceList";

/** Reads a ResourceList (as a function writes it to stdout). Items become documents of their own. */
export function parseResourceList(text: string, source = "ResourceList"): ResourceList {
  const { docs, lineCounter } = parseYamlFile(text, source);
  const doc = docs[0];
  if (docs.length !== 1 || !doc || !isMap(doc.contents)) {
    throw new KptError({ file: source }, "expected exactly one ResourceList document");
  }
  const kind = kindOf(doc);
  const apiVersion = apiVersionOf(doc);
  if (kind !== RESOURCE_LIST_KIND || !/^config\.kubernetes\.io\/v1(alpha1|beta1)?$/.test(apiVersion)) {
    throw new KptError(
      { file: source, field: "kind" },
      `expected kind ResourceList of apiVersion ${RESOURCE_LIST_API_VERSION}, found ${kind || "no kind"} of ${apiVersion || "no apiVersion"}`,
    );
  }
  const itemsNode = doc.get("items", true);
  if (itemsNode !== undefined && itemsNode !== null && !isSeq(itemsNode)) {
    throw new KptError({ file: source, field: "items" }, "items must be a list of resources");
  }
  const itemNodes = ((itemsNode as YAMLSeq | undefined)?.items ?? []) as Node[];
  for (const n of itemNodes) placeItemHeadComments(n, text);
  const items = itemNodes.map((n) => documentOf(n));
  const fc = doc.get("functionConfig", true) as Node | undefined;
  const resultsNode = doc.get("results", true);
  const results = isSeq(resultsNode) ? checkedResults(resultsNode, source, lineCounter) : [];
  const list: ResourceList = { items, results };
  if (fc && isMap(fc)) list.functionConfig = documentOf(fc);
  return list;
}

/** A ResourceList's results as kpt reads them (function-results.ts); one it cannot read is a KptError at it. */
function checkedResults(node: YAMLSeq, source: string, lineCounter: LineCounter): FunctionResult[] {
  const results = readFunctionResults(node.toJSON());
  if (Array.isArray(results)) return results;
  const at = pointAt(locate(node, results.path.slice(1)));
  throw new KptError(
    { file: source, ...positionOf(at, lineCounter), field: formatFieldPath(results.path) },
    results.message,
  );
}

/**
 * The comments over a mapping item, placed as yaml.v3 reads them: the comment lines above the `- ` are
 * the mapping's head comment, those on the `- ` line and below it its first key's (the `yaml` parser
 * gives both to the mapping, and the first item's upper ones to the list). Left as parsed where the
 * text around the item is not that shape.
 */
function placeItemHeadComments(node: Node, text: string): void {
  if (!isMap(node) || node.flow || !node.range || node.items.length === 0) return;
  const key = (node.items[0] as Pair).key;
  if (!isNode(key)) return;
  const lines = new LinesUp(text, node.range[0]);
  const keyLine = lines.up() ?? "";
  let dash: RegExpExecArray | null = /^(\s*)-\s+$/.exec(keyLine);
  const below: string[] = [];
  while (!dash) {
    const l = lines.up();
    if (l === undefined) return;
    dash = /^(\s*)-\s+(#.*)$/.exec(l);
    if (dash) below.unshift(dash[2] ?? "");
    else if (/^\s*#/.test(l)) below.unshift(l.trimStart());
    // a blank line among them (kpt writes a head comment that holds one so: `- # a`, blank, `  # b`)
    else if (l.trim() === "" && below.length > 0) below.unshift("");
    else return;
  }
  const above: string[] = [];
  for (let l = lines.up(); l !== undefined && /^\s*#/.test(l); l = lines.up()) {
    if (l.length - l.trimStart().length !== (dash[1] ?? "").length) break;
    above.unshift(l.trimStart());
  }
  // the lines as they are, `#` kept (the `\r` of a CRLF line ending no part of them)
  setHeadComment(node, above.length > 0 ? above.map(withoutCr).join("\n") : undefined);
  if (below.length > 0) setHeadComment(key, below.map(withoutCr).join("\n"));
}

const withoutCr = (line: string): string => (line.endsWith("\r") ? line.slice(0, -1) : line);

/** A document whose contents are `node` (the node is reused: its comments come along). */
function documentOf(node: Node): Document {
  const d = new Document();
  d.contents = node;
  return d;
}

/**
 * Writes a ResourceList byte for byte as kpt writes one to a function's stdin and for
 * `--output stdout`: one document, compact sequences, items in order, then functionConfig, then
 * results when there are any.
 */
export function formatResourceList(list: ResourceList): string {
  const parts = [`apiVersion: ${RESOURCE_LIST_API_VERSION}\nkind: ${RESOURCE_LIST_KIND}\n`];
  if (list.items.length === 0) parts.push("items: []\n");
  else {
    parts.push("items:\n");
    // kpt writes each item's node, not its document: a document's own comments are not part of it.
    // The node's head comment goes above the `- `; its first key's, after it (`- # comment`).
    for (const item of list.items) {
      const root = item.contents;
      const head = isNode(root) ? headComment(root) : undefined;
      if (head) parts.push(commentBlock(head, 0));
      parts.push(
        nest(formatDocument(item, "compact", { documentComments: false, rootComment: false }), "- "),
      );
    }
  }
  if (list.functionConfig) {
    parts.push("functionConfig:\n", nest(formatDocument(list.functionConfig, "compact"), "  "));
  }
  if (list.results.length > 0) {
    const results = new Document(list.results.map(plainResult));
    parts.push("results:\n", formatDocument(results, "compact"));
  }
  return parts.join("");
}

/** Indents a block by two columns, the first line after `first` (`- ` for a sequence item). */
function nest(text: string, first: string): string {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return `${lines.map((l, i) => (i === 0 ? first + l : l === "" ? "" : `  ${l}`)).join("\n")}\n`;
}

/** A result with kpt's field order and no undefined fields (nor an empty message: kpt's is `omitempty`). */
function plainResult(r: FunctionResult): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.message) out.message = r.message;
  if (r.severity) out.severity = r.severity;
  if (r.resourceRef) out.resourceRef = r.resourceRef;
  if (r.field) out.field = r.field;
  if (r.file) out.file = r.file;
  if (r.tags) out.tags = r.tags;
  return out;
}
