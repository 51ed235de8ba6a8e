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
