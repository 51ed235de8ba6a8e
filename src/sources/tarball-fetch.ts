import { LRUCache } from "lru-cache";
import { isLoopbackHost } from "../kpt/source-ref.js";
import type { FileTree } from "../kpt/tree.js";
import { readBounded } from "./egress.js";
import { SourceError } from "./errors.js";
import { sha256Digest } from "./oci/client.js";
import { MAX_ARCHIVE_BYTES, readTarball } from "./tar.js";

/**
 * Downloading a tarball, and watching one cheaply: a server that sends an `ETag` or `Last-Modified` is
 * asked again with `If-None-Match` / `If-Modified-Since`, and its `304 Not Modified` means the content is
 * the one read last time (no body, no hash, no unpacking). Without validators, or answered `200`, the
 * bytes are read and hashed: the sha256 of the bytes is the content's identity either way, so a server
 * whose validators change for the same bytes gives the same digest.
 */

export interface Tarball {
  /** `sha256:<hex>` of the archive's bytes. */
  digest: string;
  /** The archive's files (the whole archive; the caller takes its directory). */
  tree: FileTree;
  /** Answered 304 against the validators of the last read. */
  notModified: boolean;
}

interface Entry {
  etag?: string;
  lastModified?: string;
  digest: string;
  tree: FileTree;
  bytes: number;
}

/**
 * What the last read of each URL answered: its validators, digest and files. Kept for a process's life by
 * whoever watches tarballs (the bot's fan-out), bounded in bytes (the least recently read is forgotten
 * first); a URL forgotten is read in full again, which changes nothing but the cost.
 */
export class TarballCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {
    // an empty archive still takes an entry
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (e) => Math.max(1, e.bytes),
    });
  }

  get(url: string): Entry | undefined {
    return this.entries.get(url);
  }

  set(url: string, entry: Entry): void {
    // one larger than the whole budget is not kept, nor what the URL answered before
    if (entry.bytes > this.maxBytes) this.entries.delete(url);
    else this.entries.set(url, entry);
  }
}

export interface TarballFetchOptions {
  fetch?: typeof fetch;
  /** Remember validators and content here, and ask conditionally when it knows the URL. */
  cache?: TarballCache;
}

/** Reads `url` (following redirects, refusing one to plain http off loopback), at most MAX_ARCHIVE_BYTES. */
export async function fetchTarball(url: string, opts: TarballFetchOptions = {}): Promise<Tarball> {
  const doFetch = opts.fetch ?? fetch;
  const known = opts.cache?.get(url);
  const headers: Record<string, string> = {};
  if (known?.etag) headers["if-none-match"] = known.etag;
  else if (known?.lastModified) headers["if-modified-since"] = known.lastModified;
  let res: Response;
  try {
    res = await doFetch(url, { redirect: "follow", headers });
  } catch (err) {
    const why = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new SourceError(`cannot download ${url}: ${why}`);
  }
  const final = new URL(res.url || url);
  if (final.protocol === "http:" && !isLoopbackHost(final.host)) {
    await res.body?.cancel();
    throw new SourceError(`${url} redirected to plain http (${res.url}); refusing it`);
  }
  if (res.status === 304 && known) {
    return { digest: known.digest, tree: known.tree, notModified: true };
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new SourceError(`cannot download ${url}: HTTP ${res.status}`);
  }
  const bytes = await readBounded(
    res,
    MAX_ARCHIVE_BYTES,
    (n) =>
      new SourceError(`${url} is ${n} bytes or more, more than the ${MAX_ARCHIVE_BYTES} porchlight reads`),
  );
  const digest = sha256Digest(bytes);
  const tree = known?.digest === digest ? known.tree : await readTarball(bytes, url);
  const etag = res.headers.get("etag") ?? undefined;
  const lastModified = res.headers.get("last-modified") ?? undefined;
  opts.cache?.set(url, {
    ...(etag ? { etag } : {}),
    ...(lastModified ? { lastModified } : {}),
    digest,
    tree,
    bytes: bytes.length,
  });
  return { digest, tree, notModified: false };
}
