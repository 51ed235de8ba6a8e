import { diffComm } from "node-diff3";
import { formatDocs, parseYamlDocs } from "../../../src/merge/yamldoc.js";

/**
 * How one generated case came out: identical to kpt; different only in how our writer prints the same
 * merge result ("format": kpt's output, read and written by porchlight's reader and writer, equals
 * ours read and written the same way — a fault of src/kpt/format.ts, not of the merge); or different.
 */
export type Verdict = "identical" | "format" | "different" | "error";

function ourFormat(files: Record<string, string>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(files).map(([p, t]) => {
        try {
          return [
            p,
            p.endsWith(".yaml") || p.endsWith(".yml") ? noBlank(formatDocs(parseYamlDocs(t, p))) : t,
          ];
        } catch {
          return [p, t];
        }
      }),
    ),
  );
}

const noBlank = (t: string) => t.replace(/\n[ \t]*(?=\n)/g, "");

export function classify(kpt: Record<string, string>, ours: Record<string, string>, error?: string): Verdict {
  if (error) return "error";
  const a = JSON.stringify(kpt);
  if (a === JSON.stringify(ours)) return "identical";
  return ourFormat(kpt) === ourFormat(ours) ? "format" : "different";
}

/**
 * The files that differ, line by line (`-` kpt only, `+` ours only), blank lines left out when the
 * texts differ otherwise too (so a blank-line fault does not hide the rest).
 */
export function explain(kpt: Record<string, string>, ours: Record<string, string>): string {
  const out: string[] = [];
  for (const p of [...new Set([...Object.keys(kpt), ...Object.keys(ours)])].sort()) {
    let a = kpt[p];
    let b = ours[p];
    if (a === b) continue;
    out.push(`=== ${p}`);
    if (a === undefined || b === undefined) {
      out.push(a === undefined ? "(only porchlight wrote it)" : "(only kpt wrote it)");
      continue;
    }
    if (noBlank(a) !== noBlank(b)) [a, b] = [noBlank(a), noBlank(b)];
    const parts = diffComm(a.split("\n"), b.split("\n")) as unknown as {
      common?: string[];
      buffer1?: string[];
      buffer2?: string[];
    }[];
    parts.forEach((part, i) => {
      if (part.common) {
        const c = part.common;
        const head = i === 0 ? [] : c.slice(0, 3);
        const tail = i === parts.length - 1 ? [] : c.slice(-3);
        out.push(...(c.length > 6 ? [...head, "...", ...tail] : c).map((l) => `  ${l}`));
      } else {
        out.push(...(part.buffer1 ?? []).map((l) => `- ${l}`), ...(part.buffer2 ?? []).map((l) => `+ ${l}`));
      }
    });
  }
  return out.join("\n");
}
