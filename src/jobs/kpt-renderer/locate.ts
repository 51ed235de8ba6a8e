import { posix } from "node:path";
import { LRUCache } from "lru-cache";
import type { Document, LineCounter, Node } from "yaml";
import type { FunctionResult } from "../../fn/types.js";
import { kindOf, nameOf, namespaceOf } from "../../kpt/resource.js";
import { type FileTree, fileOf } from "../../kpt/tree.js";
import { blobSha } from "../../kpt/yaml/parse-cache.js";
import { locate } from "../../kpt/yaml/yaml-locate.js";
import { isYamlFileName, parseYamlFile } from "../../kpt/yaml/yamlfile.js";
import { isInside, packageDirs } from "../packages.js";
import { oldestFirst } from "./render-journal.js";

/** Where a function result points: a package-relative file and a 1-based line. */
export interface ResultPlace {
  file?: string;
  line?: number;
}

interface ParsedFile {
  docs: Document[];
  lineCounter: LineCounter;
}

/** How many placements a PlaceMemo keeps by default (some 300 bytes each: 20 MB at most). */
const DEFAULT_PLACE_MEMO_ENTRIES = 65536;

/**
 * Places of results remembered across renders (the bot's), so that a push which changes one file of a
 * large package does not read every file again to place the results of the files it did not change.
 * A place is kept under everything it was worked out from: the result's file, index, resource and
 * field, the pipeline's package, and the path and blob SHA of every file it may be in. Bounded: past
 * `maxEntries`, the least recently used are dropped. Forgetting only costs time.
 */
export class PlaceMemo {
  private readonly entries: LRUCache<string, ResultPlace>;
  /** Places worked out by reading the files, since the memo was made. */
  found = 0;
  /** Places answered from the memo. */
  remembered = 0;

  constructor(readonly maxEntries = DEFAULT_PLACE_MEMO_ENTRIES) {
    this.entries = new LRUCache<string, ResultPlace>({ max: maxEntries });
  }

  get(key: string): ResultPlace | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.remembered++;
      return { ...hit };
    }
    this.found++;
    return undefined;
  }

  set(key: string, place: ResultPlace): void {
    this.entries.set(key, { ...place });
    if (this.journaled) this.fresh.push([key, { ...place }]);
  }

  /** Whether places kept are noted for takeFresh (a renderer with a RenderJournal drains them). */
  journaled = false;

  /** Places kept since the last call (for a RenderJournal), in the order they were kept. */
  takeFresh(): [string, ResultPlace][] {
    return this.fresh.splice(0);
  }

  /** Puts back places a RenderJournal read (earlier entries first). */
  restore(entries: readonly [string, ResultPlace][]): void {
    for (const [key, place] of entries) this.entries.set(key, place);
  }

  /** Every place, least recently used first. */
  kept(): [string, ResultPlace][] {
    return oldestFirst(this.entries);
  }

  private readonly fresh: [string, ResultPlace][] = [];

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Places function results in the package's files: by the result's file and index when it names them
 * (or the document a builtin knows it is about: FunctionResult.document), else by its resource reference; the line is the field's when the result names a field path, else
 * the resource's first line. Files are parsed once per call.
 *
 * kpt names a result's file relative to its resource's own package: the package whose pipeline ran
 * the function (`packageDir`, tree-relative; the root by default) or, for a resource of a subpackage
 * (the pipeline sees them all), that subpackage. So `app-1.yaml` from the root's pipeline may be
 * `sub0/app-1.yaml`: the file whose document (at the result's index) is the resource named wins.
 */
export function resultPlacer(
  tree: FileTree,
  memo?: PlaceMemo,
  /** A file's blob id where the caller knows it (else it is hashed when needed). */
  knownSha?: (path: string) => string | undefined,
  /** Told the documents of each file the fast reader read (read only here: see HandoverParseCache). */
  onRead?: (path: string, text: string, docs: Document[]) => void,
): (r: FunctionResult, packageDir?: string) => ResultPlace {
  const reader = new PlacerFiles(tree, knownSha, onRead);
  return (r, packageDir = "") => {
    const path = r.file?.path;
    // A result that names no file may be in any file of the tree: worked out each time.
    if (!memo || !path) return placeResult(reader, r, packageDir, undefined);
    const { files, key } = memoKey(reader, r, path, packageDir);
    const known = memo.get(key);
    if (known) return known;
    const found = placeResult(reader, r, packageDir, files);
    memo.set(key, found);
    return found;
  };
}

/** One function result to place, and the package whose pipeline ran the function (the root's: ""). */
export interface ResultToPlace {
  result: FunctionResult;
  packageDir?: string;
}

/**
 * The places of many results at once, each as resultPlacer places it (the same places, remembered in
 * `memo` under the same keys), worked out file by file: the results that may be in one file only are
 * placed together and that file's documents let go before the next file is read. A render's results
 * name each of its files once per step, so one by one every file read stayed in hand until the last
 * result was placed (a 10,000-resource package's output: about 80 MB of documents kept through the
 * placement, each copied by the collector as it grew).
 */
export function placeResults(
  tree: FileTree,
  results: readonly ResultToPlace[],
  memo?: PlaceMemo,
  knownSha?: (path: string) => string | undefined,
  onRead?: (path: string, text: string, docs: Document[]) => void,
): ResultPlace[] {
  const reader = new PlacerFiles(tree, knownSha, onRead);
  const out: ResultPlace[] = new Array(results.length);
  const keys: (string | undefined)[] = new Array(results.length);
  /** By the one file each may be in, the results to place there, in the order given. */
  const byFile = new Map<string, number[]>();
  const others: { at: number; files: string[] | undefined }[] = [];
  results.forEach(({ result: r, packageDir = "" }, at) => {
    const path = r.file?.path;
    if (!path) {
      others.push({ at, files: undefined });
      return;
    }
    let files: string[];
    if (memo) {
      const named = memoKey(reader, r, path, packageDir);
      const known = memo.get(named.key);
      if (known) {
        out[at] = known;
        return;
      }
      keys[at] = named.key;
      files = named.files;
    } else files = reader.filesNamed(path, packageDir);
    const only = files.length === 1 ? files[0] : undefined;
    if (only === undefined) {
      others.push({ at, files });
      return;
    }
    const list = byFile.get(only);
    if (list) list.push(at);
    else byFile.set(only, [at]);
  });
  const placed = (at: number, files: string[] | undefined) => {
    const { result, packageDir = "" } = results[at] as ResultToPlace;
    const found = placeResult(reader, result, packageDir, files);
    const key = keys[at];
    if (memo && key !== undefined) memo.set(key, found);
    out[at] = found;
  };
  for (const [file, list] of byFile) {
    for (const at of list) placed(at, [file]);
    reader.letGo(file);
  }
  for (const { at, files } of others) placed(at, files);
  return out;
}

/**
 * The files a result's file name may be, and the key of its place in a PlaceMemo: the files' paths and
 * blob SHAs (`where`, JSON: no raw line break in it) and the result's own part, encoded per result.
 */
function memoKey(
  reader: PlacerFiles,
  r: FunctionResult,
  path: string,
  packageDir: string,
): { files: string[]; key: string } {
  const { files, key: where } = reader.filesOf(path, packageDir);
  const ref = r.resourceRef;
  const key = `${where}\n${JSON.stringify([
    r.file?.index ?? r.document ?? null,
    ref ? [ref.kind ?? null, ref.name ?? null, ref.namespace ?? null] : null,
    r.field?.path ?? null,
  ])}`;
  return { files, key };
}

/** A relative path posix.join leaves as it is: no empty, `.` or `..` segment, no leading or trailing slash. */
const PLAIN_PATH = /^(?!\.\.?(?:\/|$))[^/]+(?:\/(?!\.\.?(?:\/|$))[^/]+)*$/;

/** The tree as one placer reads it: each file parsed, and its blob SHA worked out, at most once. */
class PlacerFiles {
  private readonly parsed = new Map<string, ParsedFile | null>();
  private packages: string[] | undefined;
  /** Per pipeline package: it and the packages below it, the directories a file name it gives may be in. */
  private readonly dirs = new Map<string, string[]>();
  private readonly shas = new Map<string, string>();
  /**
   * Per pipeline package, then file name: the files it may be, and their paths and blob SHAs as a key.
   * Maps in maps, not one map under a key made of both: a large package's results name thousands of
   * files, each looked up here once a result (a key made per lookup cost a tenth of a render).
   */
  private readonly named = new Map<string, Map<string, { files: string[]; key: string }>>();

  constructor(
    readonly tree: FileTree,
    private readonly knownSha: ((path: string) => string | undefined) | undefined,
    private readonly onRead: ((path: string, text: string, docs: Document[]) => void) | undefined,
  ) {}

  /** The file parsed as YAML; null for a file that is not YAML, or not there, or does not parse. */
  parsedOf(path: string): ParsedFile | null {
    if (!this.parsed.has(path)) {
      const bytes = this.tree.get(path);
      let value: ParsedFile | null = null;
      if (bytes && isYamlFileName(path)) {
        try {
          const text = bytes.toString("utf8");
          const read = parseYamlFile(text, path);
          value = read;
          if (read.fast) this.onRead?.(path, text, read.docs);
        } catch {
          value = null;
        }
      }
      this.parsed.set(path, value);
    }
    return this.parsed.get(path) ?? null;
  }

  /** Lets go of the file's documents (read again if asked for again). */
  letGo(path: string): void {
    this.parsed.delete(path);
  }

  /** The tree-relative files `path` may be, the pipeline's own package first, then its subpackages'. */
  filesNamed(path: string, packageDir: string): string[] {
    let dirs = this.dirs.get(packageDir);
    if (!dirs) {
      this.packages ??= packageDirs(this.tree.keys());
      const under = this.packages.filter((d) => d !== packageDir && isInside(d, packageDir));
      dirs = [packageDir, ...under];
      this.dirs.set(packageDir, dirs);
    }
    const files: string[] = [];
    // A plain relative path (what results name) joined as posix.join would, without its normalizing.
    const plain = PLAIN_PATH.test(path);
    for (const d of dirs) {
      const p = plain ? (d === "" ? path : `${d}/${path}`) : posix.join(d, path);
      if (this.tree.has(p)) files.push(p);
    }
    return files;
  }

  /** filesNamed, with their paths and blob SHAs as a memo key. */
  filesOf(path: string, packageDir: string): { files: string[]; key: string } {
    let inPackage = this.named.get(packageDir);
    if (!inPackage) {
      inPackage = new Map();
      this.named.set(packageDir, inPackage);
    }
    let known = inPackage.get(path);
    if (!known) {
      const at = JSON.stringify([packageDir, path]);
      const files = this.filesNamed(path, packageDir);
      known = { files, key: JSON.stringify([at, ...files.map((p) => `${p}\0${this.shaOf(p)}`)]) };
      inPackage.set(path, known);
    }
    return known;
  }

  private shaOf(path: string): string {
    let sha = this.shas.get(path);
    if (sha === undefined) {
      sha = this.knownSha?.(path) ?? blobSha(fileOf(this.tree, path));
      this.shas.set(path, sha);
    }
    return sha;
  }
}

/**
 * One result's place, read from the files: `files` are those its file name may be (filesNamed), when
 * the caller has them.
 */
function placeResult(
  reader: PlacerFiles,
  r: FunctionResult,
  packageDir: string,
  files: string[] | undefined,
): ResultPlace {
  const ref = r.resourceRef;
  const matches = (d: Document) =>
    !!ref &&
    (!ref.kind || kindOf(d) === ref.kind) &&
    (!ref.name || nameOf(d) === ref.name) &&
    (!ref.namespace || namespaceOf(d) === ref.namespace);
  const named = r.file?.path;
  const index = r.file?.index ?? r.document;
  const docOf = (file: ParsedFile): Document | undefined =>
    named && index !== undefined
      ? file.docs[index]
      : (file.docs.find(matches) ?? (named ? file.docs[0] : undefined));
  let candidates: string[];
  if (named) {
    files ??= reader.filesNamed(named, packageDir);
    const holding = ref
      ? files.find((p) => {
          const file = reader.parsedOf(p);
          const doc = file ? docOf(file) : undefined;
          return doc !== undefined && matches(doc);
        })
      : undefined;
    candidates = holding ? [holding] : files.slice(0, 1);
    if (candidates.length === 0) return { file: posix.join(packageDir, named) };
  } else {
    candidates = ref ? [...reader.tree.keys()].sort() : [];
  }
  for (const path of candidates) {
    const file = reader.parsedOf(path);
    if (!file) {
      if (named) return { file: path, line: 1 };
      continue;
    }
    const doc = docOf(file);
    if (!doc) continue;
    const node = (r.field?.path ? fieldNode(doc, r.field.path) : undefined) ?? (doc.contents as Node | null);
    const offset = node?.range?.[0];
    return { file: path, line: offset === undefined ? 1 : file.lineCounter.linePos(offset).line };
  }
  return named ? { file: candidates[0] } : {};
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
