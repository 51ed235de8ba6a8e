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
