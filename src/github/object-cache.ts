import { LRUCache } from "lru-cache";
import { NotV2Servers } from "./git-repo/not-v2.js";

/** The default bound of a GitObjectCache: the bytes of the files it keeps. */
const DEFAULT_BLOB_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Files' bytes by repository and git blob id, kept across jobs (the app keeps one for its life), so a
 * job reading a package reads from git only the blobs no earlier job read or wrote: a push that edits
 * one file of a large draft reads that file, and the files the bot committed are never read back. A
 * blob id names its content (git checks it), so what is kept is never stale; it is kept per repository
 * all the same, so one repository's reads never answer another's. Bounded: past `maxBytes` the least
 * recently used files go, which only costs reading them again.
 *
 * It keeps, the same way, what else git answers of objects named by their ids, which never changes: a
 * commit's tree listed (a directory's, or the whole tree's, from which any directory's is cut), the paths
 * two commits differ in, and which commits the clone holds. A push to a proposal's branch starts the
 * draft's render, the proposal's check, its configuration's check and its variant files' check, each
 * asking some of these of the same commits; only the first runs git for each.
 */
export class GitObjectCache {
  private readonly blobs: LRUCache<string, Buffer>;
  private readonly comparisons = new LRUCache<string, readonly string[]>({ max: 256 });
  /** Trees listed, bounded by their entries (a 10,000-file tree is some 1 MB of them). */
  private readonly trees = new LRUCache<string, readonly TreeEntry[]>({
    maxSize: 200_000,
    sizeCalculation: (entries) => entries.length + 1,
  });
  /**
   * Commits the clone held when last asked, for an hour: a commit fetched by id is no ref's, and git's
   * housekeeping may prune it once it is two weeks old; asked after an hour, git is asked again.
   */
  private readonly held = new LRUCache<string, true>({ max: 4096, ttl: 60 * 60 * 1000 });
  /** A file's blob id at a commit (null: no regular file there), as `heldFile` asked git for it alone. */
  private readonly files = new LRUCache<string, { id: string | null }>({ max: 16_384 });
  /** The last tree listed of each repository's directory, whose entries the next listing shares. */
  private readonly lastListed = new LRUCache<string, readonly TreeEntry[]>({ max: 256 });
  /**
   * The servers that did not answer the app's requests in protocol v2 lately, left to git for a while:
   * not an object's, but kept across jobs as these are, by the one the app keeps for its life.
   */
  readonly notV2 = new NotV2Servers();
  /** Blobs answered from the cache, and read from git, since it was made. */
  hits = 0;
  misses = 0;

  constructor(readonly maxBytes = DEFAULT_BLOB_CACHE_BYTES) {
    this.blobs = new LRUCache<string, Buffer>({
      maxSize: maxBytes,
      // An empty file still takes an entry.
      sizeCalculation: (bytes) => Math.max(1, bytes.length),
    });
  }

  get(repo: string, id: string): Buffer | undefined {
    const hit = this.blobs.get(`${repo}\0${id}`);
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  set(repo: string, id: string, bytes: Buffer): void {
    if (bytes.length <= this.maxBytes) this.blobs.set(`${repo}\0${id}`, bytes);
  }

  /** The paths commit `head` changes since its merge base with `base` (both ids), if asked before. */
  changedPaths(repo: string, base: string, head: string): readonly string[] | undefined {
    return this.comparisons.get(`${repo}\0${base}...${head}`);
  }

  setChangedPaths(repo: string, base: string, head: string, paths: readonly string[]): void {
    this.comparisons.set(`${repo}\0${base}...${head}`, paths);
  }

  /** The blob of regular file `path` at commit `sha` (null: none there), if asked before; undefined when not. */
  file(repo: string, sha: string, path: string): { id: string } | null | undefined {
    const asked = this.files.get(`${repo}\0${sha}\0${path}`);
    return asked && (asked.id === null ? null : { id: asked.id });
  }

  setFile(repo: string, sha: string, path: string, blob: { id: string } | null): void {
    this.files.set(`${repo}\0${sha}\0${path}`, { id: blob?.id ?? null });
    this.held.set(`${repo}\0${sha}`, true);
  }

  /** Commit `sha`'s blobs below `dir` ("" = the whole tree), if listed before: cut from the whole tree's. */
  tree(repo: string, sha: string, dir: string): readonly TreeEntry[] | undefined {
    const listed = this.trees.get(`${repo}\0${sha}\0${dir}`);
    if (listed || dir === "") return listed;
    const all = this.trees.get(`${repo}\0${sha}\0`);
    if (!all) return undefined;
    const prefix = `${dir}/`;
    return all
      .filter((e) => e.path.startsWith(prefix))
      .map((e) => ({ ...e, path: e.path.slice(prefix.length) }));
  }

  /**
   * Keeps commit `sha`'s listing of `dir`. Its entries unchanged since the directory's last listing are
   * that listing's own objects (sharedEntries): the trees of a branch's pushes, kept side by side, hold
   * each file once and not once a push (a 10,000-file tree is 10,000 objects more for each collection
   * of the app's heap to mark, and a megabyte).
   */
  setTree(repo: string, sha: string, dir: string, entries: TreeEntry[]): void {
    const last = this.lastListed.get(`${repo}\0${dir}`);
    if (last) sharedEntries(entries, last);
    this.lastListed.set(`${repo}\0${dir}`, entries);
    this.trees.set(`${repo}\0${sha}\0${dir}`, entries);
    this.held.set(`${repo}\0${sha}`, true);
  }

  /** Whether the clone held commit `sha` when last asked, within the hour. */
  holds(repo: string, sha: string): boolean {
    return this.held.get(`${repo}\0${sha}`) === true;
  }

  setHolds(repo: string, sha: string): void {
    this.held.set(`${repo}\0${sha}`, true);
  }

  /** The bytes kept. */
  get size(): number {
    return this.blobs.calculatedSize;
  }
}

/**
 * Puts in `entries` the entries of `last` (another listing of the same directory) that are the same
 * file: both are in git's order, so each path is looked for a few entries on from the last match (a
 * file added or removed), then by name. The entries that changed get strings of their own: `git
 * ls-tree`'s output, which they are cut from, is not kept alive by them.
 */
function sharedEntries(entries: TreeEntry[], last: readonly TreeEntry[]): void {
  let byPath: Map<string, number> | undefined;
  let next = 0;
  for (const [i, e] of entries.entries()) {
    let k = next;
    while (k < last.length && k < next + 8 && last[k]?.path !== e.path) k++;
    if (last[k]?.path !== e.path) {
      byPath ??= new Map(last.map((l, n) => [l.path, n]));
      k = byPath.get(e.path) ?? -1;
    }
    const same = last[k];
    if (same) next = k + 1;
    if (same && same.id === e.id && same.mode === e.mode && same.size === e.size) entries[i] = same;
    else entries[i] = { mode: own(e.mode), id: own(e.id), size: e.size, path: own(e.path) };
  }
}

/** A copy of `s` that does not point into the string it was cut from. */
function own(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}

/** A blob of a commit's tree as `git ls-tree -l` lists it. */
export interface TreeEntry {
  mode: string;
  id: string;
  size: number;
  /** Relative to the directory listed. */
  path: string;
}
