import { gunzipSync, gzipSync } from "node:zlib";
import { extract, pack } from "tar-stream";
import type { FileTree } from "../kpt/tree.js";
import { ContentRefused, SourceError } from "./errors.js";

/**
 * Tar and tar+gzip archives as FileTrees. Reading is liberal (gzip or not, `./` prefixes, pax and GNU
 * long names, directories, links and OCI whiteouts skipped) but refuses an entry named outside the
 * archive's root (absolute, or with `..`); writing is deterministic — entries
 * sorted, mtime 0, uid/gid 0, no owner names, mode 0644, and a gzip header without a time — so the
 * same tree always gives the same bytes, and so the same digest in a registry.
 */

/** Past this many uncompressed bytes an archive is refused (a package is far smaller; see limits.ts). */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;

/** An archive holding an entry named outside its root: refused whole, never skipped nor re-rooted. */
export class EntryRefused extends ContentRefused {}

function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** A tar archive's regular files; `what` names the archive in messages. Gzip is detected, not assumed. */
export async function readTarball(bytes: Buffer, what: string): Promise<FileTree> {
  let tar: Buffer;
  try {
    tar = isGzip(bytes) ? gunzipSync(bytes, { maxOutputLength: MAX_ARCHIVE_BYTES }) : bytes;
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw new ContentRefused(
        `${what}: unpacks to more than the ${MAX_ARCHIVE_BYTES} bytes porchlight reads (a package is far smaller)`,
      );
    throw new SourceError(`${what}: not a readable gzip archive (${(err as Error).message})`);
  }
  const tree: FileTree = new Map();
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c) => chunks.push(c as Buffer));
      stream.on("end", () => {
        const path = entryPath(header.name);
        if (typeof path !== "string") {
          reject(new EntryRefused(`${what}: refused entry ${JSON.stringify(header.name)}: ${path.refused}`));
          ex.destroy();
          return;
        }
        if (header.type === "file" && path !== "" && !isWhiteout(path)) tree.set(path, Buffer.concat(chunks));
        next();
      });
      stream.on("error", reject);
    });
    ex.on("finish", resolve);
    ex.on("error", (err: Error) =>
      reject(new SourceError(`${what}: not a readable tar archive (${err.message})`)),
    );
  });
  ex.end(tar);
  await done;
  return tree;
}

/**
 * `./a/b` → `a/b` (`./` → ""). An absolute name, or one with a `..` part, is refused whatever the
 * entry's type: it was written to land outside the directory it is unpacked in, so the archive is not a
 * package's (re-rooting it would hide that).
 */
export function entryPath(name: string): string | { refused: string } {
  if (name.startsWith("/") || /^[A-Za-z]:[\\/]/.test(name))
    return { refused: "an absolute path (a package archive's entries are relative to its root)" };
  if (name.split(/[\\/]/).includes(".."))
    return { refused: "`..` climbs out of the archive's root (a package archive's entries stay below it)" };
  return name
    .split("/")
    .filter((p) => p !== "" && p !== ".")
    .join("/");
}

function isWhiteout(path: string): boolean {
  return (path.split("/").pop() ?? "").startsWith(".wh.");
}

/** The tree as an uncompressed tar, deterministic (see the file comment). */
export async function writeTar(tree: FileTree): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on("data", (c) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    p.on("end", resolve);
    p.on("error", reject);
  });
  for (const path of [...tree.keys()].sort()) {
    const body = tree.get(path) ?? Buffer.alloc(0);
    await new Promise<void>((resolve, reject) => {
      p.entry(
        {
          name: path,
          size: body.length,
          mode: 0o644,
          mtime: new Date(0),
          uid: 0,
          gid: 0,
          uname: "",
          gname: "",
        },
        body,
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** The tree as tar+gzip, deterministic: Node's gzip header carries no time and no name. */
export async function writeTarGz(tree: FileTree): Promise<Buffer> {
  return gzipSync(await writeTar(tree), { level: 9 });
}
