import { type Document, isAlias, isScalar, isSeq, parseAllDocuments, type YAMLSeq } from "yaml";
import { normalizeComments } from "../kpt/yaml/comments/apply.js";
import { detectSeqIndent, formatDocuments } from "../kpt/yaml/format.js";

/** A bad package file met while applying a variant: the whole mutation is refused, nothing half-done. */
export class VariantMutationError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "VariantMutationError";
  }
}

/** The documents of one package file, editable in place, written back only if something changed. */
export interface YamlFile {
  path: string;
  original: string;
  docs: Document[];
  /** Sequences under a key at the key's column (kpt's style) or indented by two. */
  indentSeq: boolean;
}

export function readYamlFile(path: string, text: string): YamlFile {
  const docs = parseAllDocuments(text, { prettyErrors: false });
  if (!Array.isArray(docs)) return { path, original: text, docs: [], indentSeq: false };
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) throw new VariantMutationError(path, `not valid YAML: ${err.message.split("\n")[0]}`);
    // Comments where kpt keeps them: `metadata: # kpt-merge: ns/name` stays the key's line comment.
    normalizeComments(doc, text);
  }
  return { path, original: text, docs, indentSeq: /^( *)[^\s#][^\n]*:[ \t]*\n\1 {2}- /m.test(text) };
}

/**
 * Refuses a package file with a document that is no object, as Porch's controller refuses it before it
 * applies a variant (the KRM SDK's ParseKubeObjects, `failed to extract objects: unhandled node kind N`,
 * N being yaml.v3's kind of the document's root: 8 a scalar, 16 an alias). An empty document is none.
 */
export function checkObjects(file: YamlFile): void {
  for (const doc of file.docs) {
    const root = doc.contents;
    if (root === null || (isScalar(root) && root.value === null)) continue;
    const kind = isAlias(root) ? 16 : isScalar(root) ? 8 : undefined;
    if (kind !== undefined)
      throw new VariantMutationError(file.path, `failed to extract objects: unhandled node kind ${kind}`);
  }
}

/**
 * The file's documents as kpt writes them (src/kpt's one writer, kyaml's formatting), each with the
 * list indentation it was read with: a `# kpt-merge:` comment stays on its `metadata:` line, where a
 * later update looks for it.
 */
export function writeYamlFile(file: YamlFile): string {
  return formatDocuments(
    file.docs,
    file.docs.map((d) => detectSeqIndent(d, file.original)),
  );
}

export function isYamlPath(path: string): boolean {
  return /\.ya?ml$/.test(path) || path === "Kptfile" || path.endsWith("/Kptfile");
}

/** The string at `path` in a document, if it is a string. */
export function getString(doc: Document, path: readonly (string | number)[]): string | undefined {
  const v = doc.getIn(path);
  return typeof v === "string" ? v : undefined;
}

/** The sequence at `path`, created (block style) when absent. */
export function ensureSeq(doc: Document, path: readonly (string | number)[]): YAMLSeq {
  const existing = doc.getIn(path, true);
  if (isSeq(existing)) return existing;
  const seq = doc.createNode([]) as YAMLSeq;
  seq.flow = false;
  doc.setIn(path, seq);
  return seq;
}

/** Sets `key: value` in a map if it differs; true when it changed. */
export function setIfChanged(doc: Document, path: readonly (string | number)[], value: string): boolean {
  if (doc.getIn(path) === value) return false;
  doc.setIn(path, value);
  return true;
}
