import { type Document, isMap, isScalar } from "yaml";
import { apiVersionOf, getString, kindOf, pairValue } from "./resource.js";

/** The file names kustomize reads as a Kustomization (kpt lets them through without the KRM fields). */
const KUSTOMIZATION_FILES = new Set(["kustomization.yaml", "kustomization.yml", "Kustomization"]);

/**
 * Why kpt would not take the document as a KRM resource (kpt's IsKRM, with its texts), or undefined
 * when it would: a mapping with `apiVersion`, `kind` and `metadata.name`. A Kustomization (by file
 * name, by a kustomize.config.k8s.io apiVersion, or by kind with no apiVersion) is let through.
 * `path` is the file the document came from, relative to its package.
 */
export function notKrmReason(doc: Document, path: string | undefined): string | undefined {
  if (isKustomization(doc, path)) return undefined;
  const root = doc.contents;
  if (isScalar(root)) return "wrong node kind: expected MappingNode but got ScalarNode";
  if (!isMap(root)) return "resource must have `apiVersion`";
  // The first `metadata` pair's value, as `doc.get("metadata", true)` finds it, without its iterator.
  const metadata = pairValue(root.items, "metadata");
  if (metadata !== undefined && metadata !== null && !isMap(metadata) && !isNullScalar(metadata)) {
    return "resource must have `apiVersion`, `kind`, and `name`";
  }
  if (!apiVersionOf(doc)) return "resource must have `apiVersion`";
  if (!kindOf(doc)) return "resource must have `kind`";
  if (!getString(doc, ["metadata", "name"])) return "resource must have `metadata.name`";
  return undefined;
}

function isNullScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null;
}

function isKustomization(doc: Document, path: string | undefined): boolean {
  if (path !== undefined && KUSTOMIZATION_FILES.has(path.slice(path.lastIndexOf("/") + 1))) return true;
  if (!isMap(doc.contents)) return false;
  const apiVersion = apiVersionOf(doc);
  if (apiVersion.startsWith("kustomize.config.k8s.io")) return true;
  return apiVersion === "" && kindOf(doc) === "Kustomization";
}

/** kpt's error for input that is not all KRM: the file and what it lacks. */
export function notKrmMessage(path: string, reason: string, what: "input" | "output" = "input"): string {
  // A document that is a bare scalar fails as kpt's reader fails on it, before any KRM check.
  if (reason.startsWith("wrong node kind")) return `${path}: ${reason}`;
  return `${what} resource list must contain only KRM resources: ${path}: ${reason}`;
}
