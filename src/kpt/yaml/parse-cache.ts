import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { type Document, isNode, Pair, Scalar, type Schema, YAMLMap, YAMLSeq } from "yaml";
import { parseYamlFile } from "./yamlfile.js";

/** git's object id of a file's bytes (`git hash-object`): what a parsed file is cached under. */
export function blobSha(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** The default bound of a ParseCache: the YAML source bytes whose parsed documents it keeps. */
const DEFAULT_PARSE_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * The parsed documents of YAML files, kept by git blob SHA across renders, so a render of a package
 * of which one file changed parses that file only. A long-running process (the bot) keeps one; a
 * render without one parses every file. Only files `yaml`'s parser had to read are kept: a file the
 * fast reader (yaml-fast.ts) reads is read again, which costs no more than copying kept documents
 * would, and keeping them costs more (a 10,000-resource package held as documents is some million
 * objects that every full garbage collection walks: a one-file push of such a package took 15% more
 * CPU with its files kept than read again). Bounded: past `maxBytes` of source (parsed documents take
 * some 20 times their source in memory), the least recently used files are dropped. Never hands out
 * what it keeps: each caller gets its own copy of the documents, to change as it likes.
 */
export class ParseCache {
  private readonly entries: LRUCache<string, Document[]>;
  /** Files parsed by `yaml`'s parser (not found in the cache) since the cache was made. */
  parsed = 0;
  /** Files found in the cache. */
  hits = 0;
  /** Files the fast reader read (never kept: reading them again is as cheap as a copy). */
  read = 0;

  constructor(readonly maxBytes = DEFAULT_PARSE_CACHE_BYTES) {
    // Counted by source bytes (set with each entry); an empty file still takes an entry.
    this.entries = new LRUCache<string, Document[]>({ maxSize: maxBytes });
  }

  /** The documents of the file holding `bytes` (decoded as `text`); a parse error throws as parseYamlFile's. */
  docs(bytes: Buffer, text: string, path: string): Document[] {
    const key = blobSha(bytes);
    const hit = this.entries.get(key);
    if (hit) {
      this.hits++;
      return hit.map(copyDocument);
    }
    const { docs, fast } = parseYamlFile(text, path);
    if (fast) {
      this.read++;
      return docs;
    }
    this.parsed++;
    if (bytes.length <= this.maxBytes)
      this.entries.set(key, docs.map(copyDocument), { size: Math.max(1, bytes.length) });
    return docs;
  }

  /** Source bytes of the files kept. */
  get size(): number {
    return this.entries.calculatedSize;
  }
}

/**
 * A deep copy of a document, as `doc.clone()` makes it (every node copied, comments, styles and ranges
 * kept), but built through the node classes' constructors: `clone()` copies property descriptors,
 * which leaves V8 objects that are slow to read, and every later step of a render reads them.
 */
function copyDocument(doc: Document): Document {
  const contents = doc.contents;
  doc.contents = null;
  const copy = doc.clone();
  doc.contents = contents;
  copy.contents = copyNode(contents, copy.schema) as Document["contents"];
  return copy;
}

function copyNode(node: unknown, schema: Schema): unknown {
  if (!isNode(node)) return node;
  const proto = Object.getPrototypeOf(node);
  let copy: Scalar | YAMLMap | YAMLSeq;
  if (proto === Scalar.prototype) {
    copy = Object.assign(new Scalar(undefined), node);
  } else if (proto === YAMLMap.prototype) {
    const map = Object.assign(new YAMLMap(schema), node);
    map.items = (node as YAMLMap).items.map(
      (pair) => new Pair(copyNode(pair.key, schema), copyNode(pair.value, schema)),
    );
    copy = map;
  } else if (proto === YAMLSeq.prototype) {
    const seq = Object.assign(new YAMLSeq(schema), node);
    seq.items = (node as YAMLSeq).items.map((item) => copyNode(item, schema));
    copy = seq;
  } else {
    // An alias, or a collection of another class (a tag's): as yaml copies it.
    return (node as { clone(schema?: Schema): unknown }).clone(schema);
  }
  if (node.range) copy.range = [...node.range];
  return copy;
}
