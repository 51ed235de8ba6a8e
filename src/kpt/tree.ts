import { randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

/**
 * A package (or a whole repository) as files: relative paths with forward slashes → bytes. It is the
 * common currency between disk, git and the pure transforms (render, merge): they take trees and return
 * trees, and only the edges read or write.
 */
export type FileTree = Map<string, Buffer>;

/** The bytes of a file the tree holds (a path taken from the tree's own keys): a missing one is a bug, named. */
export function fileOf(tree: FileTree, path: string): Buffer {
  const bytes = tree.get(path);
  if (bytes === undefined) throw new Error(`internal error: ${path} is not in the file tree`);
  return bytes;
}

/** Directories never read into a tree. */
const SKIPPED_DIRS = new Set([".git"]);

/**
 * Reads every regular file below `dir` (symbolic links and `.git` are skipped). The command line's:
 * the files are read one after another without leaving the thread (a package's hundreds of small
 * files cost a fifth of the CPU they cost through libuv's thread pool, four round trips each), so
 * nothing else runs meanwhile — the bot reads trees from git, never through this.
 */
export async function readTree(dir: string): Promise<FileTree> {
  const tree: FileTree = new Map();
  for (const rel of regularFiles(dir, "").sort()) tree.set(rel, readFileSync(join(dir, ...rel.split("/"))));
  return tree;
}

/**
 * Relative paths of the regular files below `dir`, walked one directory at a time: `readdir`'s own
 * `recursive` follows a link to a directory on Node 24 (a package holding `link -> ./` never ends there),
 * and kpt does not follow links inside a package.
 */
function regularFiles(dir: string, prefix: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isFile()) out.push(rel);
    else if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) out.push(...regularFiles(join(dir, e.name), rel));
  }
  return out;
}

export interface TreeChange {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** What differs between two trees, paths sorted. */
export function diffTrees(before: FileTree, after: FileTree): TreeChange {
  const change: TreeChange = { added: [], modified: [], deleted: [] };
  for (const [path, bytes] of after) {
    const old = before.get(path);
    if (!old) change.added.push(path);
    else if (!old.equals(bytes)) change.modified.push(path);
  }
  for (const path of before.keys()) if (!after.has(path)) change.deleted.push(path);
  change.added.sort();
  change.modified.sort();
  change.deleted.sort();
  return change;
}

/**
 * Makes `dir` hold `after`, given that it holds `before` now: writes added and modified files and deletes
 * removed ones, along with directories they leave empty. The command line's, as readTree: one file after
 * another without leaving the thread (through libuv's thread pool each file cost four round trips).
 *
 * Each file is written under a temporary name, then renamed over the old one: a crash, a kill or a full
 * disk leaves every file either as it was or as it is now, never half-written or emptied (kpt truncates
 * and rewrites in place). A modified file keeps its permissions, as an in-place write would.
 */
export async function writeTree(dir: string, before: FileTree, after: FileTree): Promise<TreeChange> {
  const change = diffTrees(before, after);
  const made = new Set<string>();
  // Temporary names: one random part for the run (a random draw per file was a tenth of the writing's
  // CPU), a count for each file.
  const prefix = `.porchlight-${process.pid.toString(36)}${randomBytes(3).toString("hex")}-`;
  let n = 0;
  const umask = process.umask();
  for (const [paths, existed] of [
    [change.added, false],
    [change.modified, true],
  ] as const) {
    for (const path of paths) {
      const target = join(dir, ...path.split("/"));
      const parent = dirname(target);
      if (!made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      replaceFile(target, `${target}${prefix}${n++}`, fileOf(after, path), existed, umask);
    }
  }
  for (const path of change.deleted) {
    rmSync(join(dir, ...path.split("/")), { force: true });
    removeEmptyParents(dir, path);
  }
  return change;
}

/**
 * Writes `bytes` to `temp`, then renames it to `target`; a failure removes `temp`. `existed`: the file
 * is there now, and its permissions carry over (a new file gets the umask's, as any new file).
 */
function replaceFile(target: string, temp: string, bytes: Buffer, existed: boolean, umask: number): void {
  const old = existed ? statSync(target, { throwIfNoEntry: false }) : undefined;
  const mode = old ? old.mode & 0o7777 : 0o666;
  try {
    const fd = openSync(temp, "w", mode);
    try {
      // The umask took bits off the old file's mode (say 0666 under 022): set them again.
      if (old && (mode & umask) !== 0) fchmodSync(fd, mode);
      writeFileSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}

function removeEmptyParents(root: string, path: string): void {
  const parts = path.split("/").slice(0, -1);
  while (parts.length > 0) {
    const d = join(root, ...parts);
    let left: string[];
    try {
      left = readdirSync(d);
    } catch {
      return;
    }
    if (left.length > 0) return;
    rmSync(d, { recursive: true, force: true });
    parts.pop();
  }
}

/** The subtree below `prefix` ("" = all), with paths relative to it. */
export function subtree(tree: FileTree, prefix: string): FileTree {
  if (prefix === "") return new Map(tree);
  const p = prefix.endsWith("/") ? prefix : `${prefix}/`;
  const out: FileTree = new Map();
  for (const [path, bytes] of tree) if (path.startsWith(p)) out.set(path.slice(p.length), bytes);
  return out;
}

/** Text helpers: trees hold bytes, the package model reads UTF-8. */
export function treeFromText(files: Record<string, string>): FileTree {
  return new Map(Object.entries(files).map(([k, v]) => [k, Buffer.from(v, "utf8")]));
}

export function treeToText(tree: FileTree): Record<string, string> {
  return Object.fromEntries(
    [...tree].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v.toString("utf8")]),
  );
}
