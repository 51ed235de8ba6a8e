import { createHash } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

/**
 * Writes a blob into a repository's object store as a loose object, the way `git hash-object -w`
 * does, without a process per file: the header `blob <size>\0`, SHA-1 of header and content, zlib at
 * git's own level for loose objects (core.looseCompression unset: 1, best speed). Returns the blob's
 * id. An object already present is not rewritten.
 */
export async function writeBlob(gitDir: string, content: Buffer, id?: string): Promise<string> {
  const header = Buffer.from(`blob ${content.length}\0`);
  const sha = id ?? blobId(content);
  const dir = join(gitDir, "objects", sha.slice(0, 2));
  const file = join(dir, sha.slice(2));
  if (await exists(file)) return sha;
  await mkdir(dir, { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(temp, deflateSync(Buffer.concat([header, content]), { level: 1 }));
  await rename(temp, file);
  return sha;
}

/**
 * From this many blobs on, a commit's blobs are written by `git fast-import` (fastImportBlobs) as one
 * pack rather than a loose object each: git's own receiving side keeps a pack from 100 objects on
 * (transfer.unpackLimit) and unpacks fewer into loose objects.
 */
export const PACK_FROM = 100;

/**
 * `git fast-import`'s input for blobs alone (git-fast-import(1): `blob`, then `data <size>` and the
 * bytes): git writes them as one pack, each blob stored as a delta against the one before where that is
 * smaller, so the push that follows sends those deltas as they are. A thousand files are one process
 * and two files written, where loose objects are a thousand files (and the push compresses them again).
 */
export function fastImportBlobs(blobs: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const content of blobs) parts.push(Buffer.from(`blob\ndata ${content.length}\n`), content, NEWLINE);
  return Buffer.concat(parts);
}

const NEWLINE = Buffer.from("\n");

/** git's object id of a file's bytes, as `git hash-object` computes it: SHA-1 of `blob <size>\0` and the bytes. */
export function blobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
