import { type Document, parseDocument, type YAMLMap } from "yaml";
import { KptfileInvalidError } from "../kpt/errors.js";
import type { KptFunction } from "../kpt/kptfile.js";
import type { FileTree } from "../kpt/tree.js";
import { parseYamlFile } from "../kpt/yaml/yamlfile.js";

/**
 * A pipeline step's functionConfig, as kpt builds it: from `configPath` (the file's resource, read from
 * the package; the file also stays among the items), from `configMap` (a ConfigMap named
 * function-input), or none.
 */
export function functionConfigOf(
  fn: KptFunction,
  tree: FileTree,
  packageDir: string,
  field = "configPath",
  /** kpt first checks the file exists at all; only when the package runs, that it is the package's own. */
  ownFilesOnly = true,
): Document | undefined {
  if (fn.configPath !== undefined) {
    const path = packageDir === "" ? fn.configPath : `${packageDir}/${fn.configPath}`;
    const bytes = tree.get(path);
    const kptfile = packageDir === "" ? "Kptfile" : `${packageDir}/Kptfile`;
    if (!bytes || (ownFilesOnly && inSubpackage(tree, packageDir, fn.configPath))) {
      throw new KptfileInvalidError(
        { file: kptfile, field },
        { field, value: fn.configPath, reason: "functionConfig must exist in the current package" },
        `missing function config "${fn.configPath}": no such file in the package; fix configPath in the Kptfile`,
      );
    }
    const { docs } = parseYamlFile(bytes.toString("utf8"), path);
    if (docs.length !== 1) {
      throw new KptfileInvalidError(
        { file: path },
        {
          field,
          value: fn.configPath,
          reason: `functionConfig "${fn.configPath}" must not contain more than one config, got ${docs.length}`,
        },
        `invalid function config "${fn.configPath}": expected exactly one resource, found ${docs.length}`,
      );
    }
    return docs[0];
  }
  if (fn.configMap !== undefined && Object.keys(fn.configMap).length > 0) {
    return configMapDocument(fn.configMap);
  }
  return undefined;
}

/** True when a directory between the package and `rel` (a path below it) holds a Kptfile of its own. */
function inSubpackage(tree: FileTree, packageDir: string, rel: string): boolean {
  const parts = rel.split("/").slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    if (tree.has(packageDir === "" ? `${dir}/Kptfile` : `${packageDir}/${dir}/Kptfile`)) return true;
  }
  return false;
}

/** The ConfigMap kpt wraps `configMap:` data and `kpt fn eval -- key=value` arguments in. */
export function configMapDocument(data: Record<string, string>): Document {
  const doc = parseDocument("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}\n");
  const map = doc.get("data", true) as YAMLMap;
  for (const [k, v] of Object.entries(data)) map.set(doc.createNode(k), doc.createNode(v));
  return doc;
}
