import { diff3Merge } from "node-diff3";

/**
 * Line-by-line 3-way merge of a non-KRM file (README, scripts, templates). Where both sides changed
 * the same lines, the result holds git-style conflict markers and the conflict is reported with the
 * local lines involved — never resolved silently.
 */

interface TextConflict {
  /** 1-based first and last line of the conflicting region in the local file (last < first: an insertion point). */
  lines: [number, number];
  message: string;
}

export interface TextMergeResult {
  text: string;
  conflicts: TextConflict[];
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function mergeText(original: string, updated: string, local: string): TextMergeResult {
  if (updated === original || updated === local) return { text: local, conflicts: [] };
  if (local === original) return { text: updated, conflicts: [] };
  const endsWithNewline = [updated, local].some((t) => t.endsWith("\n"));
  const regions = diff3Merge(splitLines(local), splitLines(original), splitLines(updated), {
    excludeFalseConflicts: true,
  });
  const out: string[] = [];
  const conflicts: TextConflict[] = [];
  for (const region of regions) {
    if (region.ok) {
      out.push(...region.ok);
      continue;
    }
    const c = region.conflict;
    if (!c) continue;
    const first = c.aIndex + 1;
    const last = c.aIndex + c.a.length;
    conflicts.push({
      lines: [first, last],
      message:
        c.a.length === 0
          ? `upstream and local both changed the text at line ${first}`
          : `upstream and local both changed lines ${first}-${last}`,
    });
    out.push("<<<<<<< local", ...c.a, "||||||| original", ...c.o, "=======", ...c.b, ">>>>>>> upstream");
  }
  const text = out.join("\n") + (out.length > 0 && endsWithNewline ? "\n" : "");
  return { text, conflicts };
}
