import { type Document, isScalar, isSeq, Parser, parseAllDocuments } from "yaml";
import type { VariantFile } from "./load.js";

/**
 * Porch's PackageVariant controller's finalizer: it adds it to every PackageVariant, and on deletion acts
 * on the variant's downstreams (delete or orphan, by the deletionPolicy) before it removes it. porchlight
 * keeps it, as Porch's API keeps every other part of the object, in the variant file (docs/porch-api.md).
 */
export const PACKAGE_VARIANT_FINALIZER = "config.porch.kpt.dev/packagevariants";

/** What a directory left without variant files keeps, so fan-out still runs and carries out deletions. */
export const VARIANTS_README = `# Variant files

PackageVariant and PackageVariantSet objects, one or more YAML documents a file, that porchlight's fan-out
reads (docs/variants.md). The last one was deleted through Porch's API; this file keeps the directory, so
fan-out still runs here and carries out their deletion policies.
`;

/** A variant document being deleted (`metadata.deletionTimestamp`), waiting for its finalizers. */
export interface TerminatingVariant {
  /** The file's path in the management repository. */
  file: string;
  kind: string;
  name: string;
  finalizers: string[];
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Whether an object's metadata says it is being deleted. */
export function isTerminating(metadata: unknown): boolean {
  const at = record(metadata).deletionTimestamp;
  return typeof at === "string" && at !== "";
}

/** The finalizers an object's metadata lists (strings only). */
export function finalizersOf(metadata: unknown): string[] {
  const f = record(metadata).finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : [];
}

/** The documents of a file, or undefined when one does not parse (loadVariants reports it). */
function documentsOf(text: string): Document[] | undefined {
  const docs = parseAllDocuments(text) as Document[];
  return docs.some((d) => d.errors.length > 0) ? undefined : docs;
}

/** Each document's own text (a comment above the first goes with it, one after a document with that one). */
function pieces(text: string): string[] {
  const starts = [...new Parser().parse(text)].flatMap((t) => (t.type === "document" ? [t.offset] : []));
  return starts.map((at, i) => text.slice(i === 0 ? 0 : at, starts[i + 1] ?? text.length));
}

/** Document texts back into a file, each after its own `---`; undefined when none is left. */
function fileOf(texts: readonly string[]): string | undefined {
  if (texts.length === 0) return undefined;
  return texts
    .map((p) => p.replace(/^---[ \t]*\n/, ""))
    .map((p) => (p.endsWith("\n") ? p : `${p}\n`))
    .join("---\n");
}

const identity = (doc: Document) => {
  const data = record(doc.toJS());
  return { kind: String(data.kind ?? ""), metadata: record(data.metadata) };
};

/**
 * The variant files without the documents being deleted, and those documents: to fan-out a variant being
 * deleted is a variant removed, whose downstreams go by its deletionPolicy, as Porch's controller acts on
 * a PackageVariant with a deletionTimestamp.
 */
export function withoutTerminating(files: readonly VariantFile[]): {
  files: VariantFile[];
  terminating: TerminatingVariant[];
} {
  const terminating: TerminatingVariant[] = [];
  const kept = files.flatMap((f) => {
    const docs = f.text.includes("deletionTimestamp") ? documentsOf(f.text) : undefined;
    if (!docs) return [f];
    const left = docs.filter((d) => {
      const { kind, metadata } = identity(d);
      if (!isTerminating(metadata) || typeof metadata.name !== "string") return true;
      terminating.push({ file: f.path, kind, name: metadata.name, finalizers: finalizersOf(metadata) });
      return false;
    });
    if (left.length === docs.length) return [f];
    const texts = pieces(f.text);
    const text = fileOf(texts.filter((_, i) => left.includes(docs[i] as Document)));
    return text === undefined ? [] : [{ path: f.path, text }];
  });
  return { files: kept, terminating };
}

/**
 * The file's text with `finalizer` taken off the document `kind`/`name`; a document being deleted that has
 * no finalizer left is removed, as the API server removes such an object. `text` undefined: no document is
 * left in the file. `changed` false: the document does not hold the finalizer (or the file does not parse).
 */
export function releaseFinalizer(
  text: string,
  kind: string,
  name: string,
  finalizer: string,
): { changed: boolean; text: string | undefined } {
  const docs = documentsOf(text);
  const unchanged = { changed: false, text };
  if (!docs) return unchanged;
  const at = docs.findIndex((d) => {
    const id = identity(d);
    return id.kind === kind && id.metadata.name === name;
  });
  const doc = docs[at];
  if (!doc) return unchanged;
  const { metadata } = identity(doc);
  const finalizers = finalizersOf(metadata);
  if (!finalizers.includes(finalizer)) return unchanged;
  const left = finalizers.filter((f) => f !== finalizer);
  const texts = pieces(text);
  if (left.length === 0 && isTerminating(metadata))
    return { changed: true, text: fileOf(texts.filter((_, i) => i !== at)) };
  const seq = doc.getIn(["metadata", "finalizers"]);
  if (left.length === 0) doc.deleteIn(["metadata", "finalizers"]);
  else if (isSeq(seq)) seq.items = seq.items.filter((item) => !(isScalar(item) && item.value === finalizer));
  // the document edited is written again; the others keep their bytes
  return { changed: true, text: fileOf(texts.map((t, i) => (i === at ? String(doc) : t))) };
}
