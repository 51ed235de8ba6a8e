import { addMergeComment, type PkgResource } from "./match.js";
import { walkIsIdentity } from "./styles.js";
import { type DocChunk, parseChunk, parseYamlDocs, splitDocuments, type YamlDoc } from "./yamldoc.js";

/**
 * Reading the resource files of one package in its three versions for the merge, with as little
 * parsing as possible: files are cut into documents, a document whose text is the same in all three
 * versions (and which the merge would leave as it is) is parsed once and settled without a merge,
 * and the original and updated versions of a document share one parse when their texts are equal.
 * Every parsed document gets kpt's merge comment.
 */
export type TextFiles = Map<string, string>;

export interface ReadResources {
  local: PkgResource[];
  original: PkgResource[];
  updated: PkgResource[];
  /** Resources equal on all three sides: the merge result is the local resource as it is. */
  settled: PkgResource[];
}

type Side = "local" | "original" | "updated";

function parse(text: string, path: string, chunk?: DocChunk): YamlDoc[] {
  const docs = chunk === undefined ? parseYamlDocs(text, path) : parseChunk(chunk, path);
  for (const d of docs) addMergeComment(d);
  return docs;
}

export function readResources(original: TextFiles, updated: TextFiles, local: TextFiles): ReadResources {
  const out: ReadResources = { local: [], original: [], updated: [], settled: [] };
  const paths = [...new Set([...local.keys(), ...original.keys(), ...updated.keys()])].sort();
  for (const path of paths) {
    const texts = { local: local.get(path), original: original.get(path), updated: updated.get(path) };
    const chunks = {
      local: chunksOf(texts.local),
      original: chunksOf(texts.original),
      updated: chunksOf(texts.updated),
    };
    if (chunks.local === undefined || chunks.original === undefined || chunks.updated === undefined) {
      readWhole(path, texts, out);
    } else {
      readChunks(path, chunks as Record<Side, DocChunk[]>, out);
    }
  }
  return out;
}

function chunksOf(text: string | undefined): DocChunk[] | undefined {
  return text === undefined ? [] : splitDocuments(text);
}

/** A file that cannot be cut into documents safely: each version parsed whole (original and updated shared when equal). */
function readWhole(path: string, texts: Record<Side, string | undefined>, out: ReadResources): void {
  const o = texts.original === undefined ? [] : parse(texts.original, path);
  const u =
    texts.updated === undefined ? [] : texts.updated === texts.original ? o : parse(texts.updated, path);
  const l = texts.local === undefined ? [] : parse(texts.local, path);
  out.original.push(...o.map((y, index) => ({ path, index, y })));
  out.updated.push(...u.map((y, index) => ({ path, index, y })));
  out.local.push(...l.map((y, index) => ({ path, index, y })));
}

function readChunks(path: string, chunks: Record<Side, DocChunk[]>, out: ReadResources): void {
  const next: Record<Side, number> = { local: 0, original: 0, updated: 0 };
  const n = Math.max(chunks.local.length, chunks.original.length, chunks.updated.length);
  for (let i = 0; i < n; i++) {
    const [l, o, u] = [chunks.local[i], chunks.original[i], chunks.updated[i]];
    let od: YamlDoc[] | undefined;
    if (l && o && u && l.text === o.text && o.text === u.text) {
      od = parse(l.text, path, l);
      const only = od.length === 1 ? od[0] : undefined;
      if (only && walkIsIdentity(only.doc.contents)) {
        out.settled.push({ path, index: next.local, y: only });
        next.local++;
        next.original++;
        next.updated++;
        continue;
      }
    }
    od ??= o ? parse(o.text, path, o) : [];
    const ud = u ? (o && u.text === o.text ? od : parse(u.text, path, u)) : [];
    const ld = l ? parse(l.text, path, l) : [];
    for (const y of od) out.original.push({ path, index: next.original++, y });
    for (const y of ud) out.updated.push({ path, index: next.updated++, y });
    for (const y of ld) out.local.push({ path, index: next.local++, y });
  }
}
