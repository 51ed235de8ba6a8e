import { type Document, isCollection, isDocument, isPair, isScalar, parseAllDocuments, visit } from "yaml";
import { YamlError } from "../kpt/errors.js";

/**
 * Reading and writing YAML the way kpt's merge does (kyaml over yaml.v3): scalars keep their source
 * text (the failsafe schema reads every scalar as a string, so `010` stays `010` and `yes` stays `yes`),
 * comments are kept, blank lines between fields are dropped, sequences are written "compact"
 * (`- a` under the key) or "wide" (indented) as each document was read.
 *
 * Until the render helper's kyaml serializer (src/kpt/format.ts) lands, this is the merge's own.
 */

export type SeqIndent = "compact" | "wide";

/** One document of a YAML file, with what is needed to write it back as kpt would. */
export interface YamlDoc {
  doc: Document;
  seqIndent: SeqIndent;
}

const PARSE_OPTIONS = { schema: "failsafe", keepSourceTokens: false, uniqueKeys: false } as const;

/** Splits and parses a file's documents; empty documents are dropped as kyaml drops them. */
export function parseYamlDocs(text: string, file: string): YamlDoc[] {
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: YamlDoc[] = [];
  for (const doc of list) {
    const err = doc.errors[0];
    if (err) {
      const at = err.linePos?.[0];
      throw new YamlError(
        { file, line: at?.line, column: at?.col },
        `invalid YAML: ${err.message.split("\n")[0]}; fix the syntax and run again`,
      );
    }
    if (doc.contents === null) continue;
    keyLineComments(doc, text);
    const [start, , end] = doc.range;
    out.push({ doc, seqIndent: deriveSeqIndent(text.slice(start, end)) });
  }
  return out;
}

/**
 * `key: # comment` above a block collection: yaml.v3 keeps the comment on the key's line, the `yaml`
 * parser files it before the collection's first item; move it to the key so it is written back on
 * the key's line.
 */
function keyLineComments(doc: Document, text: string): void {
  visit(doc, {
    Pair(_k, pair) {
      const key = pair.key;
      const value = pair.value;
      if (!isScalar(key) || !isCollection(value) || value.flow || !value.commentBefore) return;
      const from = key.range?.[1];
      const to = value.range?.[0];
      if (from === undefined || to === undefined) return;
      const between = text.slice(from, to);
      const hash = between.indexOf("#");
      const nl = between.indexOf("\n");
      if (hash < 0 || (nl >= 0 && nl < hash)) return;
      const lines = value.commentBefore.split("\n");
      key.comment = lines[0] ?? "";
      value.commentBefore = lines.length > 1 ? lines.slice(1).join("\n") : null;
    },
  });
}

/**
 * kyaml's rule: the first sequence item found under a `key:` line decides; an item at the key's
 * indentation is compact, two spaces deeper is wide; anything else looks further; default compact.
 */
export function deriveSeqIndent(text: string): SeqIndent {
  const lines = text.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const dash = line.indexOf("- ");
    if (dash < 0 || line.slice(0, dash).trim() !== "") continue;
    const keyLine = lines[i - 1]!;
    const keyIndent = keyLine.length - keyLine.trimStart().length;
    const trimmed = keyLine.trim();
    if (trimmed.split(":").length !== 2 || !trimmed.endsWith(":")) continue;
    if (dash === keyIndent) return "compact";
    if (dash - keyIndent === 2) return "wide";
  }
  return "compact";
}

/** One document as kyaml writes it (ends with a newline). */
export function formatDoc(d: YamlDoc): string {
  const doc = d.doc;
  visit(doc, {
    Node(_key, node) {
      node.spaceBefore = false;
      if (isCollection(node)) node.flow = node.flow ?? false;
    },
    Pair(_key, pair) {
      if (isPair(pair) && pair.key && typeof pair.key === "object" && "spaceBefore" in pair.key) {
        (pair.key as { spaceBefore?: boolean }).spaceBefore = false;
      }
    },
  });
  const trailing = doc.comment;
  doc.comment = null;
  if (isDocument(doc) && doc.directives) doc.directives.docStart = null;
  let text = doc.toString({
    indent: 2,
    indentSeq: d.seqIndent === "wide",
    lineWidth: 0,
    minContentWidth: 0,
    flowCollectionPadding: false,
  });
  doc.comment = trailing;
  if (text.startsWith("---\n")) text = text.slice(4);
  if (trailing) text += `${commentLines(trailing)}\n`;
  return text;
}

function commentLines(comment: string): string {
  return comment
    .split("\n")
    .map((l) => (l === "" ? "" : `#${l}`))
    .join("\n");
}

/** A file of documents, `---` between them, as kyaml's ByteWriter writes it. */
export function formatDocs(docs: readonly YamlDoc[]): string {
  return docs.map(formatDoc).join("---\n");
}
