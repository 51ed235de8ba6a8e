import type { FileTree } from "../../kpt/tree.js";

/**
 * A file tree as it crosses to a worker thread and back: every file's bytes in one buffer, moved (not
 * copied) with the message. Structured cloning a tree of Buffers would copy each one's whole backing
 * store — Node's small Buffers share an 8 KiB pool, git's reads are slices of a larger one — and give
 * plain Uint8Arrays back.
 */
export interface WireTree {
  paths: string[];
  /** Where each file's bytes end in `bytes` (the next one's start). */
  ends: number[];
  bytes: ArrayBuffer;
}

/**
 * A tree made from another (a render's output from its input) as it crosses back: its paths in order and
 * the bytes of the files that differ from the other's, new files included. A one-file edit the render
 * writes back to moves one file, not the package (nor are the others copied twice to pack them).
 */
export interface WireChanges {
  paths: string[];
  written: WireTree;
}

/** `tree` as changes to `from` (every file of `tree` that `from` holds with other bytes, or not at all). */
export function packChanges(tree: FileTree, from: FileTree): WireChanges {
  const written: FileTree = new Map();
  for (const [path, bytes] of tree) {
    const was = from.get(path);
    if (was !== bytes && !was?.equals(bytes)) written.set(path, bytes);
  }
  return { paths: [...tree.keys()], written: packTree(written) };
}

/**
 * The tree `changes` describes over `from`: the files written from the message's buffer, every other
 * file `from`'s own Buffer (a caller can tell them unchanged by identity).
 */
export function unpackChanges(changes: WireChanges, from: FileTree): FileTree {
  const written = unpackTree(changes.written);
  const tree: FileTree = new Map();
  for (const path of changes.paths) {
    const bytes = written.get(path) ?? from.get(path);
    if (bytes === undefined)
      throw new Error(`the render's output names ${path}, which it neither wrote nor was given`);
    tree.set(path, bytes);
  }
  return tree;
}

/** A tree packed for a message; its buffer goes in the message's transfer list. */
export function packTree(tree: FileTree): WireTree {
  const paths = [...tree.keys()];
  const ends: number[] = [];
  let size = 0;
  for (const bytes of tree.values()) {
    size += bytes.length;
    ends.push(size);
  }
  const bytes = new ArrayBuffer(size);
  const view = new Uint8Array(bytes);
  let at = 0;
  for (const file of tree.values()) {
    view.set(file, at);
    at += file.length;
  }
  return { paths, ends, bytes };
}

/** The tree a packed one holds: each file a Buffer over the one received buffer (no copy). */
export function unpackTree(wire: WireTree): FileTree {
  const tree: FileTree = new Map();
  let start = 0;
  wire.paths.forEach((path, i) => {
    const end = wire.ends[i] ?? start;
    tree.set(path, Buffer.from(wire.bytes, start, end - start));
    start = end;
  });
  return tree;
}
