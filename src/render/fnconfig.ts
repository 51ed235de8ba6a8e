import { type Document, parseDocument, type YAMLMap } from "yaml";
import { KptError } from "../kpt/errors.js";
import type { KptFunction } from "../kpt/kptfile.js";
import type { FileTree } from "../kpt/tree.js";
import { parseYamlFile } from "../kpt/yamlfile.js";

/**
 * A pipeline step's functionConfig, as kpt builds it: from `configPath` (the file's resource, read from
 * the package; the file also stays among the items), from `configMap` (a ConfigMap named
 * function-input), or none.
 */
export function functionConfigOf(fn: KptFunction, tree: FileTree, packageDir: string): Document | undefined {
  if (fn.configPath !== undefined) {
    const path = packageDir === "" ? fn.configPath : `${packageDir}/${fn.configPath}`;
    const bytes = tree.get(path);
    if (!bytes) {
      throw new KptError(
        { file: path, field: "configPath" },
        `missing function config "${fn.configPath}": no such file in the package; fix configPath in the Kptfile`,
      );
    }
    const { docs } = parseYamlFile(bytes.toString("utf8"), path);
    if (docs.length !== 1) {
      throw new KptError(
        { file: path },
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

/** The ConfigMap kpt wraps `configMap:` data and `kpt fn eval -- key=value` arguments in. */
export function configMapDocument(data: Record<string, string>): Document {
  const doc = parseDocument("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}\n");
  const map = doc.get("data", true) as YAMLMap;
  for (const [k, v] of Object.entries(data)) map.set(doc.createNode(k), doc.createNode(v));
  return doc;
}
