import { existsSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Document, isMap, isSeq, YAMLMap, YAMLSeq } from "yaml";
import { KPTFILE_NAME, parseKptfile, type Selector } from "../kpt/kptfile.js";
import { formatDocument } from "../kpt/yaml/format.js";

/** The function `fn eval --save` adds to a Kptfile, in kpt's field order. */
export interface SavedFunction {
  image?: string;
  exec?: string;
  configPath?: string;
  configMap?: Record<string, string>;
  selectors?: Selector[];
  exclude?: Selector[];
}

/** Kptfile top-level fields in kpt's order; `pipeline` goes after the ones before it. */
const BEFORE_PIPELINE = ["apiVersion", "kind", "metadata", "upstream", "upstreamLock", "info"];

/**
 * `kpt fn eval --save --type T`: puts the function into the Kptfile's `pipeline.mutators` (or
 * `validators`) of the package at `dir` — in place of an entry with the same image or exec, else at the
 * end — keeping the Kptfile's comments and field order; the message kpt prints, to show the user.
 */
export async function saveFunction(
  dir: string,
  fn: SavedFunction,
  type: "mutator" | "validator",
): Promise<string> {
  const path = join(dir, KPTFILE_NAME);
  if (!existsSync(path)) return "function not added: Kptfile not exists\n";
  let doc: Document;
  try {
    doc = parseKptfile(await readFile(path, "utf8"), KPTFILE_NAME).doc;
  } catch (e) {
    return `function not added: Kptfile not exists\n(${KPTFILE_NAME}: ${(e as Error).message})\n`;
  }
  const list = pipelineList(doc, type === "mutator" ? "mutators" : "validators");
  const name = fn.image ?? fn.exec;
  if (name === undefined) return "function not added: it names neither an image nor an exec\n";
  const entry = doc.createNode(entryFields(fn));
  let verb = "Added";
  list.items = list.items.map((item) => {
    if (!isMap(item)) return item;
    const same = fn.image ? item.get("image") === fn.image : item.get("exec") === fn.exec;
    if (!same) return item;
    verb = "Updated";
    return entry;
  });
  if (verb === "Added") list.items.push(entry);
  const temp = `${path}.porchlight-save`;
  await writeFile(temp, formatDocument(doc, "wide"));
  await rename(temp, path);
  return `${verb} "${name}" as ${type} in the Kptfile.\n`;
}

function entryFields(fn: SavedFunction): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fn.image) out.image = fn.image;
  else if (fn.exec) out.exec = fn.exec;
  if (fn.configPath) out.configPath = fn.configPath;
  if (fn.configMap && Object.keys(fn.configMap).length > 0) out.configMap = sorted(fn.configMap);
  if (fn.selectors?.length) out.selectors = fn.selectors.map(selectorFields);
  if (fn.exclude?.length) out.exclude = fn.exclude.map(selectorFields);
  return out;
}

/** kpt writes a selector's fields in this order, maps with sorted keys. */
function selectorFields(s: Selector): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.apiVersion) out.apiVersion = s.apiVersion;
  if (s.kind) out.kind = s.kind;
  if (s.name) out.name = s.name;
  if (s.namespace) out.namespace = s.namespace;
  if (s.labels && Object.keys(s.labels).length > 0) out.labels = sorted(s.labels);
  if (s.annotations && Object.keys(s.annotations).length > 0) out.annotations = sorted(s.annotations);
  return out;
}

function sorted(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The Kptfile's `pipeline.<key>` sequence, created where kpt would put it. */
function pipelineList(doc: Document, key: "mutators" | "validators"): YAMLSeq {
  const root = doc.contents as YAMLMap;
  const found: unknown = root.get("pipeline", true);
  let pipeline: YAMLMap;
  if (isMap(found)) pipeline = found;
  else {
    pipeline = new YAMLMap();
    const pair = doc.createPair("pipeline", pipeline);
    const existing = root.items.findIndex((p) => keyOf(p) === "pipeline");
    if (existing >= 0) root.items[existing] = pair;
    else root.items.splice(lastIndexOf(root, BEFORE_PIPELINE) + 1, 0, pair);
  }
  const current: unknown = pipeline.get(key, true);
  if (isSeq(current)) return current;
  const list = new YAMLSeq();
  const pair = doc.createPair(key, list);
  const existing = pipeline.items.findIndex((p) => keyOf(p) === key);
  // kpt keeps the Kptfile's own field order and puts a new list after the existing ones.
  if (existing >= 0) pipeline.items[existing] = pair;
  else pipeline.items.push(pair);
  return list;
}

function lastIndexOf(map: YAMLMap, keys: readonly string[]): number {
  let at = -1;
  map.items.forEach((p, i) => {
    if (keys.includes(keyOf(p))) at = i;
  });
  return at < 0 ? map.items.length - 1 : at;
}

function keyOf(pair: { key: unknown }): string {
  const k = pair.key as { value?: unknown } | string;
  return typeof k === "object" && k !== null ? String(k.value) : String(k);
}
