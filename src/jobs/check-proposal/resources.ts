import { LRUCache } from "lru-cache";
import type { Document } from "yaml";
import {
  apiVersionOf,
  isKrm,
  isLocalConfig,
  kindOf,
  nameOf,
  namespaceOf,
  toPlain,
} from "../../kpt/resource.js";
import type { FileTree } from "../../kpt/tree.js";
import { parseYamlFile } from "../../kpt/yaml/yamlfile.js";
import type { ResourceId } from "../../lifecycle/summary/types.js";

/** One resource of a package as the summary compares it. */
export interface PackageResource {
  id: ResourceId;
  key: string;
  file: string;
  value: unknown;
  /** Its workload's containers' images by container name (none: not a workload), read once. */
  containers: ReadonlyMap<string, string | undefined>;
}

/** A file's resources as the summary compares them, and the path they were read at. */
interface FileResources {
  file: string;
  resources: readonly PackageResource[];
}

/**
 * Each file's resources by its git blob id, so that a push to a proposal parses only the files it
 * changed: the summary compares the base's files with the head's on every push, and both sides' other
 * files are the blobs it read before. Bounded by the files' size (a few large packages); the values are
 * never changed after they are made, so the base and the head share them (deepEqual answers at once).
 */
const byBlob = new LRUCache<string, FileResources>({ maxSize: 32 << 20 });

/**
 * The package's deployable resources by `apiVersion-group/kind/namespace/name`: KRM documents of its
 * YAML files, without the Kptfile and local-config resources (they are not applied to a cluster).
 * A file that does not parse is skipped here: the render check reports it. `blobs`: the files' git
 * blob ids, where the caller read them (a file read before is not parsed again).
 */
export function packageResources(
  tree: FileTree,
  blobs?: ReadonlyMap<string, string>,
): Map<string, PackageResource> {
  const out = new Map<string, PackageResource>();
  for (const [file, bytes] of [...tree].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!file.endsWith(".yaml") && !file.endsWith(".yml")) continue;
    const blob = blobs?.get(file);
    let found = blob === undefined ? undefined : byBlob.get(blob);
    // The same bytes at another path (a file copied or moved): the same resources, named at this one.
    if (found && found.file !== file)
      found = { file, resources: found.resources.map((r) => ({ ...r, file })) };
    if (!found) {
      found = { file, resources: fileResources(bytes, file) };
      // (sized by the file's bytes: what it costs to read again)
      if (blob !== undefined) byBlob.set(blob, found, { size: Math.max(1, bytes.length) });
    }
    // each resource object as made once: unchanged files' resources are the same objects at every head
    for (const r of found.resources) out.set(r.key, r);
  }
  return out;
}

/** The deployable resources of one file (none where it does not parse). */
function fileResources(bytes: Buffer, file: string): PackageResource[] {
  let docs: Document[];
  try {
    docs = parseYamlFile(bytes.toString("utf8"), file).docs;
  } catch {
    return [];
  }
  const out: PackageResource[] = [];
  for (const doc of docs) {
    if (!isKrm(doc) || kindOf(doc) === "Kptfile" || isLocalConfig(doc)) continue;
    const id: ResourceId = { apiVersion: apiVersionOf(doc), kind: kindOf(doc), name: nameOf(doc) };
    const ns = namespaceOf(doc);
    if (ns) id.namespace = ns;
    const group = id.apiVersion.includes("/") ? id.apiVersion.split("/")[0] : "";
    const value = stripKptAnnotations(toPlain(doc));
    out.push({ id, key: `${group}/${id.kind}/${ns}/${id.name}`, file, value, containers: containers(value) });
  }
  return out;
}

/** A value at a path of plain data, or undefined. */
export function at(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** Containers of a workload, wherever its pod template sits: each one's image by its name. */
function containers(value: unknown): Map<string, string | undefined> {
  const specs = [
    at(value, "spec"),
    at(value, "spec", "template", "spec"),
    at(value, "spec", "jobTemplate", "spec", "template", "spec"),
  ];
  const out = new Map<string, string | undefined>();
  for (const spec of specs) {
    for (const c of [...list(at(spec, "initContainers")), ...list(at(spec, "containers"))]) {
      const name = at(c, "name");
      const image = at(c, "image");
      if (typeof name === "string" && name) out.set(name, typeof image === "string" ? image : undefined);
    }
  }
  return out;
}

/** A value of plain data as a list (none where it is not one). */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** kpt's bookkeeping annotations say where a resource sits, not what it is: ignore them. */
function stripKptAnnotations(value: unknown): unknown {
  const metadata = isObject(value) ? value.metadata : undefined;
  const ann = isObject(metadata) ? metadata.annotations : undefined;
  if (!isObject(metadata) || !isObject(ann)) return value;
  for (const k of Object.keys(ann)) {
    if (k.startsWith("internal.config.kubernetes.io/") || k.startsWith("config.kubernetes.io/path"))
      delete ann[k];
    if (k === "config.kubernetes.io/index") delete ann[k];
  }
  if (Object.keys(ann).length === 0) delete metadata.annotations;
  return value;
}

/** An object of a resource's plain data (a mapping, or a list: what `delete` and Object.keys take alike). */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
