import { type Document, isMap, isScalar, isSeq, parseAllDocuments } from "yaml";
import { YamlError } from "../kpt/errors.js";
import { normalizeComments, WholeFile } from "../kpt/yaml/comments/apply.js";
import { formatDocument, type SeqIndent, seqIndentIn } from "../kpt/yaml/format.js";
import { mergeKeysAsText } from "../kpt/yaml/yaml-nodes.js";
import { blockScalarAtEnd, isEmptyDocument } from "../kpt/yaml/yamlfile.js";

/**
 * YAML documents as kpt's merge reads and writes them. Reading: the failsafe schema (every scalar is
 * its source string, so `010` stays `010` and `yes` stays `yes`, as kyaml compares them), comments
 * moved where yaml.v3 keeps them, and each document's sequence style derived as kyaml derives it.
 * Writing: the shared kpt serializer (src/kpt/format.ts).
 */

/** One document of a YAML file, with what is needed to write it back as kpt would. */
export interface YamlDoc {
  doc: Document;
  seqIndent: SeqIndent;
}

const PARSE_OPTIONS = { schema: "failsafe", keepSourceTokens: false, uniqueKeys: false } as const;

/**
 * Splits and parses a file's documents as kyaml does: cut at the `---` lines, each piece parsed on
 * its own, pieces with no content (only comments) dropped with their comments.
 */
export function parseYamlDocs(text: string, file: string): YamlDoc[] {
  const chunks = splitDocuments(text);
  if (!chunks) return parseChunk({ text, line: 0 }, file);
  return chunks.flatMap((c) => parseChunk(c, file));
}

/** Under the failsafe schema an empty document, `~` and `null` are plain strings: nulls to kyaml. */
function plainNull(node: unknown): boolean {
  return (
    isScalar(node) && node.type === "PLAIN" && ["", "~", "null", "Null", "NULL"].includes(String(node.value))
  );
}

/** Parses one piece of a file (see splitDocuments), or a whole file; empty documents are dropped. */
export function parseChunk(chunk: DocChunk, file: string): YamlDoc[] {
  const { text, line: lineOffset, whole } = chunk;
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: YamlDoc[] = [];
  for (const doc of list) {
    const err = doc.errors[0];
    if (err) {
      const at = err.linePos?.[0];
      throw new YamlError(
        { file, line: at ? at.line + lineOffset : undefined, column: at?.col },
        `invalid YAML: ${err.message.split("\n")[0]}; fix the syntax and run again`,
      );
    }
    // The reader's own rules (src/kpt/yamlfile.ts): a piece with no content (a lone `---`, comments
    // only) is no document; a block scalar running to a file's end without a line break has none.
    if (isEmptyDocument(doc) || plainNull(doc.contents)) continue;
    if (!text.endsWith("\n")) blockScalarAtEnd(doc, text.length);
    emptyScalarsAsNull(doc);
    mergeKeysAsText(doc, text);
    // a piece after the file's first starts at its `---` line: the reader reads the whole file, and
    // knows whether kpt's cut leaves that line (and its comment) first in the piece
    normalizeComments(doc, text, { piece: whole });
    // the reader's derivation (kyaml's DeriveSeqIndentStyle: comment lines between a key and its
    // first `- ` are skipped), so a get or update writes a list as a render does
    const [start, , end] = doc.range;
    out.push({ doc, seqIndent: seqIndentIn(text, start, Math.min(end, text.length)) });
  }
  return out;
}

/** The failsafe schema reads `key:` (no value) as an empty string; it is a null, written back as `key:`. */
function emptyScalarsAsNull(doc: Document): void {
  const walk = (node: unknown): void => {
    if (isScalar(node)) {
      if (node.value === "" && (node.type === "PLAIN" || node.type === undefined) && !node.source) {
        node.value = null;
      }
    } else if (isMap(node)) {
      for (const pair of node.items) {
        walk(pair.key);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(doc.contents);
}

/** One document's text within a file, from its `---` line (the first chunk may have none). */
export interface DocChunk {
  text: string;
  /** 0-based line of the chunk in the file. */
  line: number;
  /**
   * The file the chunk is cut from, and where in it: the comment reader reads the file whole (the
   * chunk alone cannot tell how kyaml's cut reads its `---` line).
   */
  whole?: { of: WholeFile; at: number };
}

/**
 * A file cut at its `---` separator lines, so documents can be compared as text and parsed one by
 * one. Undefined when the file has directives (`%`) or document-end markers (`...`), where cutting
 * at separators alone would be wrong.
 */
export function splitDocuments(text: string): DocChunk[] | undefined {
  const chunks: DocChunk[] = [];
  const whole = new WholeFile(text);
  let chunkStart = 0;
  let chunkLine = 0;
  let line = 0;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const c = text.charCodeAt(at);
    if (c === 37 /* % */ || (c === 46 /* . */ && text.startsWith("...", at))) return undefined;
    if (c === 45 /* - */ && text.startsWith("---", at) && (end === at + 3 || /\s/.test(text[at + 3]!))) {
      if (at > chunkStart) chunks.push(chunk(whole, chunkStart, at, chunkLine));
      chunkStart = at;
      chunkLine = line;
    }
    at = end + 1;
    line++;
  }
  if (text.length > chunkStart) chunks.push(chunk(whole, chunkStart, text.length, chunkLine));
  return chunks;
}

function chunk(whole: WholeFile, from: number, to: number, line: number): DocChunk {
  return { text: whole.text.slice(from, to), line, whole: { of: whole, at: from } };
}

/** One document as kyaml writes it (ends with a newline). */
function formatDoc(d: YamlDoc): string {
  return formatDocument(d.doc, d.seqIndent);
}

/** A file of documents, `---` between them, as kyaml's ByteWriter writes it. */
export function formatDocs(docs: readonly YamlDoc[]): string {
  return docs.map(formatDoc).join("---\n");
}
