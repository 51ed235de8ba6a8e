import type { Document, LineCounter, Node } from "yaml";
import type { FunctionResult } from "../../fn/types.js";
import { kindOf, nameOf, namespaceOf } from "../../kpt/resource.js";
import type { FileTree } from "../../kpt/tree.js";
import { locate } from "../../kpt/yaml-locate.js";
import { isYamlFileName, parseYamlFile } from "../../kpt/yamlfile.js";

/** Where a function result points: a package-relative file and a 1-based line. */
export interface ResultPlace {
  file?: string;
  line?: number;
}

interface ParsedFile {
  docs: Document[];
  lineCounter: LineCounter;
}

/**
 * Places function results in the package's files: by the result's file and index when it names them,
 * else by its resource reference; the line is the field's when the result names a field path, else
 * the resource's first line. Files are parsed once per call.
 */
export function resultPlacer(tree: FileTree): (r: FunctionResult) => ResultPlace {
  const parsed = new Map<string, ParsedFile | null>();
  const fileOf = (path: string): ParsedFile | null => {
    if (!parsed.has(path)) {
      const bytes = tree.get(path);
      let value: ParsedFile | null = null;
      if (bytes && isYamlFileName(path)) {
        try {
          value = parseYamlFile(bytes.toString("utf8"), path);
        } catch {
          value = null;
        }
      }
      parsed.set(path, value);
    }
    return parsed.get(path) ?? null;
  };
  return (r) => {
    const ref = r.resourceRef;
    const matches = (d: Document) =>
      !!ref &&
      (!ref.kind || kindOf(d) === ref.kind) &&
      (!ref.name || nameOf(d) === ref.name) &&
      (!ref.namespace || namespaceOf(d) === ref.namespace);
    const candidates = r.file?.path ? [r.file.path] : ref ? [...tree.keys()].sort() : [];
    for (const path of candidates) {
      const file = fileOf(path);
      if (!file) {
        if (r.file?.path && tree.has(path)) return { file: path, line: 1 };
        continue;
      }
      const doc =
        r.file?.index !== undefined && r.file.path === path
          ? file.docs[r.file.index]
          : (file.docs.find(matches) ?? (r.file?.path ? file.docs[0] : undefined));
      if (!doc) continue;
      const node =
        (r.field?.path ? fieldNode(doc, r.field.path) : undefined) ?? (doc.contents as Node | null);
      const offset = node?.range?.[0];
      return { file: path, line: offset === undefined ? 1 : file.lineCounter.linePos(offset).line };
    }
    return r.file?.path ? { file: r.file.path } : {};
  };
}

/**
 * The node at a kyaml-style field path (`spec.containers[0].image`, `metadata.labels.app`), or the
 * deepest one that exists; `[name=x]` selectors are skipped. Undefined when not even the first step
 * exists.
 */
function fieldNode(doc: Document, path: string): Node | undefined {
  const segments = path
    .replace(/\[(\d+)\]/g, ".$1")
    .replace(/\[[^\]]*\]/g, "")
    .split(".")
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const at = locate(doc.contents as Node | null, segments);
  return at.node === doc.contents ? undefined : (at.node ?? undefined);
}
