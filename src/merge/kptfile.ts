import { Document, parse, visit } from "yaml";
import { KptfileError } from "../kpt/errors.js";
import { formatDocument } from "../kpt/format.js";
import { inferredContext, merge3 } from "./merge3.js";

/**
 * The Kptfile during `pkg get` and `pkg update`, as kpt handles it: read into kpt's Kptfile structure
 * and written back from it (so fields come out in kpt's order, sequences indented, comments gone —
 * exactly what kpt writes), and merged 3-way on that structure: annotations, labels, info, pipeline
 * and inventory merge (functions matched by name, or by image/exec when no function has a name);
 * name, namespace, upstream and upstreamLock stay the local ones unless told otherwise.
 */

// biome-ignore lint/suspicious/noExplicitAny: a Kptfile read as plain data, shaped by kpt's struct order below
export type PlainKptfile = Record<string, any>;

/** kpt's Go struct field order for each object in a Kptfile (keys not listed follow, sorted). */
const ORDER: Record<string, readonly string[]> = {
  "": [
    "apiVersion",
    "kind",
    "metadata",
    "upstream",
    "upstreamLock",
    "info",
    "pipeline",
    "inventory",
    "status",
  ],
  metadata: ["name", "namespace", "labels", "annotations"],
  upstream: ["type", "git", "oci", "updateStrategy"],
  "upstream.git": ["repo", "directory", "ref"],
  upstreamLock: ["type", "git", "oci"],
  "upstreamLock.git": ["repo", "directory", "ref", "commit"],
  info: ["site", "emails", "license", "licenseFile", "description", "keywords", "man", "readinessGates"],
  pipeline: ["mutators", "validators"],
  "pipeline.mutators[]": ["image", "exec", "configPath", "configMap", "name", "selectors", "exclude"],
  "pipeline.validators[]": ["image", "exec", "configPath", "configMap", "name", "selectors", "exclude"],
  inventory: ["namespace", "name", "inventoryID", "labels", "annotations"],
  status: ["conditions", "renderStatus"],
  "status.conditions[]": ["type", "status", "reason", "message"],
};

const SORTED_MAPS = new Set([
  "metadata.labels",
  "metadata.annotations",
  "inventory.labels",
  "inventory.annotations",
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

function ordered(value: unknown, path: string): unknown {
  if (Array.isArray(value)) return value.map((v) => ordered(v, `${path}[]`));
  if (!isObject(value)) return value;
  const order = ORDER[path];
  const keys = Object.keys(value).filter((k) => !isEmpty(value[k]));
  const sortAll = SORTED_MAPS.has(path) || path.endsWith("configMap") || path.endsWith("selectors[]");
  const known = order ? order.filter((k) => keys.includes(k)) : [];
  const rest = keys.filter((k) => !known.includes(k));
  if (sortAll || order) rest.sort();
  const out: Record<string, unknown> = {};
  for (const k of sortAll ? [...keys].sort() : [...known, ...rest]) {
    out[k] = ordered(value[k], path === "" ? k : `${path}.${k}`);
  }
  return out;
}

/** Writes a Kptfile as kpt does (struct field order, empty fields left out, wide sequences). */
export function formatKptfile(kf: PlainKptfile): string {
  const doc = new Document(ordered(kf, ""));
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && quotedByGoEncoder(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return formatDocument(doc, "wide");
}

const OLD_BOOLS = new Set(
  ["y", "yes", "on", "n", "no", "off"].flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]),
);
const BASE_60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * kpt writes the Kptfile from its Go struct, and yaml.v3 encodes a Go string that YAML 1.1 would
 * read as a bool or a base-60 float (`on`, `no`, `1:20`) double-quoted — keys of maps too. The shared
 * serializer (src/kpt/format.ts) writes such strings plain, as yaml.v3 does for yaml.Node values.
 */
function quotedByGoEncoder(value: string): boolean {
  return OLD_BOOLS.has(value) || BASE_60_FLOAT.test(value);
}

export function parseKptfileText(text: string, file: string): PlainKptfile {
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    throw new KptfileError({ file }, `invalid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  if (!isObject(value)) throw new KptfileError({ file }, "the Kptfile is not a YAML mapping");
  return value as PlainKptfile;
}

const SYNTHETIC_PREFIX = "_kpt-merge_";

function fnKey(fn: Record<string, unknown>): string {
  if (typeof fn.exec === "string" && fn.exec !== "") return fn.exec;
  return String(fn.image ?? "").split(":")[0] ?? "";
}

function functionLists(kf: PlainKptfile | undefined): Record<string, unknown>[][] {
  const p = kf?.pipeline;
  if (!isObject(p)) return [];
  return [p.mutators, p.validators].filter(Array.isArray) as Record<string, unknown>[][];
}

/** kpt names functions by image (or exec) for the merge only when no function anywhere has a name. */
function shouldAddFnKey(kfs: PlainKptfile[]): boolean {
  for (const kf of kfs) {
    for (const list of functionLists(kf)) {
      const seen = new Set<string>();
      for (const fn of list) {
        if (fn.name) return false;
        const key = fnKey(fn);
        if (seen.has(key)) return false;
        seen.add(key);
      }
    }
  }
  return true;
}

function setSyntheticNames(kf: PlainKptfile, add: boolean): void {
  for (const list of functionLists(kf)) {
    for (const fn of list) {
      if (add && !fn.name) fn.name = `${SYNTHETIC_PREFIX}${fnKey(fn)}`;
      if (!add && typeof fn.name === "string" && fn.name.startsWith(SYNTHETIC_PREFIX)) delete fn.name;
    }
  }
}

function toNode(kf: PlainKptfile) {
  return new Document(ordered(kf, "")).contents;
}

/**
 * kpt's Kptfile merge. `updateUpstream` (for a subpackage with its own upstream) also takes
 * upstream and upstreamLock from updated.
 */
export function mergeKptfile(
  local: PlainKptfile,
  updated: PlainKptfile,
  original: PlainKptfile,
  updateUpstream: boolean,
): PlainKptfile {
  const [l, u, o] = [local, updated, original].map((k) => structuredClone(k)) as [
    PlainKptfile,
    PlainKptfile,
    PlainKptfile,
  ];
  const synthetic = shouldAddFnKey([l, u, o]);
  if (synthetic) for (const k of [l, u, o]) setSyntheticNames(k, true);
  const mergedNode = merge3(toNode(l), toNode(o), toNode(u), inferredContext());
  const merged = (mergedNode ? new Document(mergedNode).toJS() : {}) as PlainKptfile;
  if (synthetic) setSyntheticNames(merged, false);
  const out = structuredClone(local);
  out.metadata = { ...(isObject(out.metadata) ? out.metadata : {}) };
  setOrDelete(out.metadata, "annotations", merged.metadata?.annotations);
  setOrDelete(out.metadata, "labels", merged.metadata?.labels);
  for (const k of ["info", "pipeline", "inventory"]) setOrDelete(out, k, merged[k]);
  if (updateUpstream) {
    if (updated.upstream) out.upstream = structuredClone(updated.upstream);
    if (updated.upstreamLock) out.upstreamLock = structuredClone(updated.upstreamLock);
  }
  return out;
}

function setOrDelete(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined || value === null) delete obj[key];
  else obj[key] = value;
}

/** Records `strategy` as the root Kptfile's `upstream.updateStrategy` (an explicit --strategy sticks, as in kpt). */
export function setUpdateStrategy(tree: Map<string, Buffer>, strategy: string): void {
  const bytes = tree.get("Kptfile");
  if (!bytes) return;
  const kf = parseKptfileText(bytes.toString("utf8"), "Kptfile");
  kf.upstream = { ...(kf.upstream ?? { type: "git" }), updateStrategy: strategy };
  tree.set("Kptfile", Buffer.from(formatKptfile(kf)));
}
