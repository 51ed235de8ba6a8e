import { LRUCache } from "lru-cache";
import type { FileTree } from "../../kpt/tree.js";

/**
 * The layers of package images that were refused when read, remembered by digest so that a fan-out
 * run (every sweep, every publish) does not download them again to refuse them again: a blob's digest
 * names its bytes, so the same bytes get the same answer. Kept for the process's life by whoever pulls
 * images repeatedly (the bot's fan-out), bounded in entries (the least recently used is forgotten
 * first); a forgotten blob is read again, which changes nothing but the cost.
 */
export type BlobVerdict =
  /** Refused whatever the settings: larger than porchlight reads, or an entry outside the archive's root. */
  | { kind: "refused"; reason: string }
  /** Not a tar or tar+gzip archive (another layer may hold the package). */
  | { kind: "not-a-tar"; reason: string }
  /** The package at one directory of it, as counted when a limit refused it (limits may change). */
  | { kind: "measured"; files: number; bytes: number };

/** A package's size, as the package limits count it. */
export interface PackageSize {
  files: number;
  bytes: number;
}

/** A package's files and bytes, counted as the package limits count them. */
export function packageSize(tree: FileTree): PackageSize {
  return { files: tree.size, bytes: [...tree.values()].reduce((n, b) => n + b.length, 0) };
}

export class RefusedBlobs {
  private readonly verdicts: LRUCache<string, BlobVerdict>;

  constructor(max = 1024) {
    this.verdicts = new LRUCache<string, BlobVerdict>({ max });
  }

  /** What the blob was refused for, whatever directory of it is read. */
  blob(digest: string): Extract<BlobVerdict, { kind: "refused" | "not-a-tar" }> | undefined {
    const v = this.verdicts.get(digest);
    return v && v.kind !== "measured" ? v : undefined;
  }

  /** The size of the package at `directory` of the blob, when a limit refused it. */
  measured(digest: string, directory: string): PackageSize | undefined {
    const v = this.verdicts.get(`${digest}\0${directory}`);
    return v?.kind === "measured" ? { files: v.files, bytes: v.bytes } : undefined;
  }

  refuse(digest: string, verdict: Extract<BlobVerdict, { kind: "refused" | "not-a-tar" }>): void {
    this.verdicts.set(digest, verdict);
  }

  measure(digest: string, directory: string, size: PackageSize): void {
    this.verdicts.set(`${digest}\0${directory}`, { kind: "measured", ...size });
  }
}
