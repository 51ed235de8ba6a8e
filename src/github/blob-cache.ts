import { LRUCache } from "lru-cache";

/** The default bound of a BlobCache: the bytes of the files it keeps. */
const DEFAULT_BLOB_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Files' bytes by repository and git blob id, kept across jobs (the app keeps one for its life), so a
 * job reading a package reads from git only the blobs no earlier job read or wrote: a push that edits
 * one file of a large draft reads that file, and the files the bot committed are never read back. A
 * blob id names its content (git checks it), so what is kept is never stale; it is kept per repository
 * all the same, so one repository's reads never answer another's. Bounded: past `maxBytes` the least
 * recently used files go, which only costs reading them again.
 */
export class BlobCache {
  private readonly blobs: LRUCache<string, Buffer>;
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

  /** The bytes kept. */
  get size(): number {
    return this.blobs.calculatedSize;
  }
}
