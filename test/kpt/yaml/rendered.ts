import { normalizeComments } from "../../../src/kpt/yaml/comments/apply.js";
import { detectSeqIndent, formatDocuments } from "../../../src/kpt/yaml/format.js";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";

/**
 * What a render writes of a file it read from `text` and changed nothing of, its lists at the indent the
 * file gave them (`copied`: the documents cloned first, as a function's copy of them is).
 */
export function rendered(text: string, { copied = false } = {}): string {
  const { docs } = parseYamlFile(text, "x.yaml");
  for (const d of docs) normalizeComments(d, text);
  return formatDocuments(
    copied ? docs.map((d) => d.clone()) : docs,
    docs.map((d) => detectSeqIndent(d, text)),
  );
}

/** The same, its lists at kpt's own indent whatever the file's was. */
export function rewrite(text: string): string {
  const { docs } = parseYamlFile(text, "x.yaml");
  for (const d of docs) normalizeComments(d, text);
  return formatDocuments(docs);
}
