import { Document, isMap, isSeq, visit } from "yaml";
import { type PlainKptfile, readKptfileStruct } from "../kpt/kptfile.js";
import { asKptStruct, STRUCT_LISTS } from "../kpt/kptfile-struct.js";
import { formatDocument } from "../kpt/yaml/format.js";
import type { ListKeys } from "./listkeys.js";
import { merge3 } from "./merge3.js";
import { field, isMissingOrNull, type MaybeNode } from "./nodes.js";
import { MergeError } from "./types.js";

/**
 * The Kptfile during `pkg get` and `pkg update`, as kpt handles it: read into kpt's Kptfile structure
 * and written back from it (so fields come out in kpt's order, sequences indented, comments gone —
 * exactly what kpt writes; kpt/kptfile-struct.ts), and merged 3-way on that structure: annotations, labels,
 * info, pipeline, inventory and status merge (functions matched by name, or by image/exec when no
 * function has a name; other lists taken whole); name, namespace, upstream and upstreamLock stay the
 * local ones unless told otherwise.
 */

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Writes a Kptfile as kpt does (struct field order, empty fields left out, wide sequences). */
export function formatKptfile(kf: PlainKptfile): string {
  const doc = new Document(asKptStruct(kf));
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && quotedByGoEncoder(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return formatDocument(doc, "wide");
}

const OLD_BOOLS = new Set(
  ["y", "yes", "on", "n", "no", "off"].flatMap((w) => [
    w,
    w.charAt(0).toUpperCase() + w.slice(1),
    w.toUpperCase(),
  ]),
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

/** The Kptfile as kpt hands it to the merge: marshalled, so a string that reads as null is quoted. */
function toNode(kf: PlainKptfile) {
  const doc = new Document(asKptStruct(kf));
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && NULL_TEXTS.has(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return doc.contents;
}

const NULL_TEXTS = new Set(["", "~", "null", "Null", "NULL"]);

const SIDES = ["local", "the original upstream", "the updated upstream"];

/**
 * kyaml's list rule for the Kptfile merge (kyaml v0.15.0, no schema, keys inferred): a list merges by
 * `name` when every element of one of its sides has a `name`, else it is taken whole; a side after one
 * whose elements all have names (local, then origin, then upstream) that has an element without one
 * stops kpt's update ("conflicting merge keys") — porchlight stops it too, saying which list to fix.
 */
function kptfileListKeys(file: string) {
  return (path: readonly string[], sources: readonly MaybeNode[]): ListKeys | undefined => {
    const allNamed = (n: MaybeNode) =>
      isSeq(n) && n.items.every((e) => isMap(e) && field(e, "name") !== undefined);
    if (!sources.some((n) => !isMissingOrNull(n) && allNamed(n))) return undefined;
    let key: { name: string; side: number } | undefined;
    sources.forEach((n, side) => {
      if (!isSeq(n) || n.items.length === 0) return;
      const mine = allNamed(n) ? "name" : "";
      if (key?.name && key.name !== mine) {
        const last = path.findLastIndex((p, i) => i < path.length - 1 && STRUCT_LISTS.has(p));
        const kyamlPath = path.slice(last + 1).join(".");
        throw new MergeError(
          `${file}: ${path.join(".")}: every item has a name in ${SIDES[key.side]} Kptfile, not in ` +
            `${SIDES[side]} one, so kpt cannot tell which items are the same (conflicting merge keys ` +
            "[name,]); give every item of that list a name, on each side, or none, then update again",
          `conflicting merge keys [${key.name},${mine}] for field ${kyamlPath}`,
        );
      }
      key = { name: mine, side };
    });
    return ["name"];
  };
}

/**
 * kpt's Kptfile merge. `updateUpstream` (for a subpackage with its own upstream) also takes
 * upstream and upstreamLock from updated. Throws MergeError where kpt refuses (conflicting merge keys).
 * `onReplaced` is told each field where upstream's value replaced a local edit (kpt's rule: a list
 * without names taken whole from upstream, local additions included: `pipeline.mutators`), functions
 * named by name or, when none has one, `[function=IMAGE]`.
 */
export function mergeKptfile(
  local: PlainKptfile,
  updated: PlainKptfile,
  original: PlainKptfile,
  updateUpstream: boolean,
  file = "Kptfile",
  onReplaced?: (field: string) => void,
): PlainKptfile {
  const [l, u, o] = [local, updated, original].map((k) => structuredClone(k)) as [
    PlainKptfile,
    PlainKptfile,
    PlainKptfile,
  ];
  const synthetic = shouldAddFnKey([l, u, o]);
  if (synthetic) for (const k of [l, u, o]) setSyntheticNames(k, true);
  const mergedNode = merge3(toNode(l), toNode(o), toNode(u), {
    keysFor: kptfileListKeys(file),
    ...(onReplaced
      ? { onReplaced: (f: string) => onReplaced(f.replaceAll(`name=${SYNTHETIC_PREFIX}`, "function=")) }
      : {}),
  });
  const merged = asKptStruct((mergedNode ? new Document(mergedNode).toJS() : {}) as PlainKptfile);
  if (synthetic) setSyntheticNames(merged, false);
  const out = structuredClone(local);
  out.metadata = { ...(isObject(out.metadata) ? out.metadata : {}) };
  setOrDelete(out.metadata, "annotations", merged.metadata?.annotations);
  setOrDelete(out.metadata, "labels", merged.metadata?.labels);
  for (const k of ["info", "pipeline", "inventory", "status"]) setOrDelete(out, k, merged[k]);
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
  const kf = readKptfileStruct(bytes.toString("utf8"), "Kptfile");
  kf.upstream = { ...(kf.upstream ?? { type: "git" }), updateStrategy: strategy };
  tree.set("Kptfile", Buffer.from(formatKptfile(kf)));
}
