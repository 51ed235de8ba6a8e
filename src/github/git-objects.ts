import { createHash } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

/** A kind of git object this module writes. */
type ObjectType = "blob" | "tree" | "commit";

/**
 * Writes an object into a repository's object store as a loose object, the way `git hash-object -w`
 * does, without a process: the header `TYPE <size>\0`, SHA-1 of header and content, zlib at git's own
 * level for loose objects (core.looseCompression unset: 1, best speed). Returns the object's id. An
 * object already present is not rewritten.
 */
async function writeObject(gitDir: string, type: ObjectType, content: Buffer, id?: string): Promise<string> {
  const header = Buffer.from(`${type} ${content.length}\0`);
  const sha = id ?? objectId(type, content);
  const dir = join(gitDir, "objects", sha.slice(0, 2));
  const file = join(dir, sha.slice(2));
  if (await exists(file)) return sha;
  await mkdir(dir, { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(temp, deflateSync(Buffer.concat([header, content]), { level: 1 }));
  await rename(temp, file);
  return sha;
}

/** A file's bytes written as a blob (writeObject); `id`, where known, is not computed again. */
export function writeBlob(gitDir: string, content: Buffer, id?: string): Promise<string> {
  return writeObject(gitDir, "blob", content, id);
}

/** One entry of a tree object: a file (mode 100644, 100755, 120000), a tree (40000) or a submodule. */
export interface TreeItem {
  mode: string;
  name: string;
  id: string;
}

/** A tree's mode as git writes it in a tree object (`ls-tree` prints it `040000`). */
export const TREE_MODE = "40000";

/**
 * A tree object's content, as `git mktree` (and `write-tree`) writes it: each entry `MODE NAME\0` and
 * the 20 bytes of its id, in git's order — names compared byte by byte, a tree's as if it ended in
 * `/` (git's base_name_compare), so `a.txt` comes before the tree `a` and the tree `a` before `a0`.
 */
function treeObject(items: readonly TreeItem[]): Buffer {
  const key = (i: TreeItem) => Buffer.from(i.mode === TREE_MODE ? `${i.name}/` : i.name, "utf8");
  const sorted = items.map((i) => ({ i, k: key(i) })).sort((a, b) => Buffer.compare(a.k, b.k));
  return Buffer.concat(
    sorted.flatMap(({ i }) => [Buffer.from(`${i.mode} ${i.name}\0`, "utf8"), Buffer.from(i.id, "hex")]),
  );
}

/** The entries of a tree object's content (what `cat-file --batch` gives for a tree). */
export function parseTree(content: Buffer): TreeItem[] {
  const items: TreeItem[] = [];
  for (let at = 0; at < content.length; ) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new Error("a tree object cut short");
    const mode = content.toString("latin1", at, space);
    const name = content.toString("utf8", space + 1, nul);
    items.push({ mode, name, id: content.toString("hex", nul + 1, nul + 21) });
    at = nul + 21;
  }
  return items;
}

/**
 * Writes the trees of `files` (paths relative to the tree's root, `/`-separated, each with its mode and
 * blob id), the deepest first, as loose objects; the root tree's id, or undefined for no files (git
 * keeps no empty tree in another).
 */
export async function writeTrees(
  gitDir: string,
  files: ReadonlyMap<string, { mode: string; id: string }>,
): Promise<string | undefined> {
  if (files.size === 0) return undefined;
  const here: TreeItem[] = [];
  const below = new Map<string, Map<string, { mode: string; id: string }>>();
  for (const [path, f] of files) {
    const slash = path.indexOf("/");
    if (slash < 0) {
      here.push({ mode: f.mode, name: path, id: f.id });
      continue;
    }
    const dir = path.slice(0, slash);
    const inner = below.get(dir) ?? new Map<string, { mode: string; id: string }>();
    below.set(dir, inner);
    inner.set(path.slice(slash + 1), f);
  }
  for (const [name, inner] of below) {
    const id = await writeTrees(gitDir, inner);
    if (id) here.push({ mode: TREE_MODE, name, id });
  }
  return writeObject(gitDir, "tree", treeObject(here));
}

/** Writes a tree object of `items` (treeObject); its id. */
export function writeTree(gitDir: string, items: readonly TreeItem[]): Promise<string> {
  return writeObject(gitDir, "tree", treeObject(items));
}

/** Who made a commit, and when (seconds since the epoch, UTC). */
export interface Signature {
  name: string;
  email: string;
  seconds: number;
}

/**
 * Whether writeCommit writes what `git commit-tree` writes for this author and message: git drops `<`,
 * `>` and line breaks from a name or an e-mail address and trims odd characters at their ends, and a
 * message holding NUL is cut there. Elsewhere the caller asks git.
 */
export function commitAsGitWrites(author: { name: string; email: string }, message: string): boolean {
  const plain = (s: string) => s !== "" && !/[<>\n\0]/.test(s) && !/^[\s.,:;"'\\]|[\s.,:;"'\\]$/.test(s);
  return plain(author.name) && plain(author.email) && !message.includes("\0");
}

/**
 * Writes a commit object as `git commit-tree TREE [-p PARENT] -F -` writes it with the same author,
 * committer and time (in UTC); its id. For an author and message commitAsGitWrites accepts.
 */
export function writeCommit(
  gitDir: string,
  input: { tree: string; parent: string | null; author: Signature; message: string },
): Promise<string> {
  const { name, email, seconds } = input.author;
  const who = `${name} <${email}> ${seconds} +0000`;
  const text = [
    `tree ${input.tree}`,
    ...(input.parent ? [`parent ${input.parent}`] : []),
    `author ${who}`,
    `committer ${who}`,
    "",
    input.message,
  ].join("\n");
  return writeObject(gitDir, "commit", Buffer.from(text, "utf8"));
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
  return objectId("blob", content);
}

function objectId(type: ObjectType, content: Buffer): string {
  return createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
