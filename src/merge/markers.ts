import type { FileTree } from "../kpt/tree.js";

/** A conflict region left in a file: from its `<<<<<<<` line to its `>>>>>>>` line (1-based). */
export interface MarkerRegion {
  file: string;
  startLine: number;
  endLine: number;
}

const OPEN = /^<{7}(?: |$)/;
const CLOSE = /^>{7}(?: |$)/;

/**
 * The git-style conflict regions left in a text (as the 3-way merge of non-KRM files writes them, or
 * as git leaves them): each `<<<<<<<` line up to its `>>>>>>>` line, or to itself when none follows.
 * A `=======` line alone is a Markdown heading underline, not a conflict; it is never counted alone.
 */
export function conflictRegions(text: string): { startLine: number; endLine: number }[] {
  const regions: { startLine: number; endLine: number }[] = [];
  const lines = text.split("\n");
  let open: number | undefined;
  lines.forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (OPEN.test(line)) {
      if (open !== undefined) regions.push({ startLine: open, endLine: open });
      open = i + 1;
    } else if (CLOSE.test(line) && open !== undefined) {
      regions.push({ startLine: open, endLine: i + 1 });
      open = undefined;
    }
  });
  if (open !== undefined) regions.push({ startLine: open, endLine: open });
  return regions;
}

/** Every conflict region in the text files of a tree (binary files, holding a NUL byte, are skipped), by path. */
export function conflictMarkers(tree: FileTree): MarkerRegion[] {
  const found: MarkerRegion[] = [];
  for (const [file, bytes] of [...tree].sort(([a], [b]) => a.localeCompare(b))) {
    if (bytes.includes(0) || !bytes.includes("<<<<<<<")) continue;
    for (const r of conflictRegions(bytes.toString("utf8"))) found.push({ file, ...r });
  }
  return found;
}
