import { Document } from "yaml";
import { getString } from "./resource.js";
import type { FileTree } from "./tree.js";
import { normalizeComments } from "./yaml/comments/apply.js";
import { detectSeqIndent, formatDocument, formatDocuments } from "./yaml/format.js";
import { isYamlFileName, parseYamlFile } from "./yaml/yamlfile.js";

/** The file and ConfigMap holding a package's context (kpt's builtin `gen-pkg-context`). */
export const PACKAGE_CONTEXT_FILE = "package-context.yaml";
export const PACKAGE_CONTEXT_NAME = "kptfile.kpt.dev";

/** The package context ConfigMap naming package `name`, as kpt writes it (`data.name` only). */
export function packageContextText(name: string): string {
  return formatDocument(
    new Document({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: PACKAGE_CONTEXT_NAME,
        annotations: { "config.kubernetes.io/local-config": "true" },
      },
      data: { name },
    }),
  );
}

/** Whether a parsed document is a package context ConfigMap. */
function isPackageContext(doc: Document): boolean {
  return (
    getString(doc, ["apiVersion"]) === "v1" &&
    getString(doc, ["kind"]) === "ConfigMap" &&
    getString(doc, ["metadata", "name"]) === PACKAGE_CONTEXT_NAME
  );
}

/**
 * A package made deployable as `kpt pkg get --for-deployment` makes it, and Porch's clone into a
 * deployment repository: every package context ConfigMap is dropped (a file left with nothing is removed),
 * and each package — the root and every subpackage — gets a new `package-context.yaml` beside its Kptfile
 * whose `data.name` is that Kptfile's `metadata.name`: the name of the package it is now, not of its
 * upstream. Other keys an upstream's context held go with it, as kpt's builtin drops them. Files that are
 * not YAML, or do not parse, are left as they are. Pure: `tree` is not changed.
 */
export function generatePackageContext(tree: FileTree): FileTree {
  const out: FileTree = new Map(tree);
  for (const [path, bytes] of tree) {
    if (!isYamlFileName(path)) continue;
    const text = bytes.toString("utf8");
    let docs: Document[];
    try {
      docs = parseYamlFile(text, path).docs;
    } catch {
      continue;
    }
    const kept = docs.filter((d) => !isPackageContext(d));
    if (kept.length === docs.length) continue;
    if (kept.length === 0) {
      out.delete(path);
      continue;
    }
    for (const d of kept) normalizeComments(d, text);
    out.set(
      path,
      Buffer.from(
        formatDocuments(
          kept,
          kept.map((d) => detectSeqIndent(d, text)),
        ),
      ),
    );
  }
  for (const [path, bytes] of tree) {
    if (path !== "Kptfile" && !path.endsWith("/Kptfile")) continue;
    let name: string | undefined;
    try {
      const doc = parseYamlFile(bytes.toString("utf8"), path).docs[0];
      name = doc ? getString(doc, ["metadata", "name"]) : undefined;
    } catch {
      name = undefined;
    }
    if (name === undefined) continue;
    const target = `${path.slice(0, -"Kptfile".length)}${PACKAGE_CONTEXT_FILE}`;
    const rest = out.get(target);
    const context = packageContextText(name);
    out.set(target, Buffer.from(rest ? `${rest.toString("utf8")}---\n${context}` : context));
  }
  return out;
}
