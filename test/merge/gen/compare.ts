import { diffComm } from "node-diff3";
import { formatDocs, parseYamlDocs } from "../../../src/merge/yamldoc.js";
import type { CaseOutcome } from "../kpt-oracle.js";

/**
 * How one generated case came out: identical to kpt; "format": the same merge written differently —
 * kpt, reading and writing porchlight's result (`kpt fn eval --exec cat`), writes exactly its own
 * result, or porchlight's reader and writer make the two results the same text (blank lines aside):
 * the difference is in src/kpt's reader or writer, not in the merge; or different.
 */
export type Verdict = "identical" | "format" | "different" | "error";

const noBlank = (t: string) => t.replace(/\n[ \t]*(?=\n)/g, "");

export function classify(r: CaseOutcome): Verdict {
  if (r.error) return "error";
  if (JSON.stringify(r.kpt) === JSON.stringify(r.porchlight)) return "identical";
  if (JSON.stringify(r.kpt) === JSON.stringify(r.porchlightByKpt)) return "format";
  return ourFormat(r.kpt) === ourFormat(r.porchlight) ? "format" : "different";
}

function ourFormat(files: Record<string, string>): string {
  const out: Record<string, string> = {};
  for (const [p, t] of Object.entries(files)) {
    try {
      out[p] = noBlank(p.endsWith(".yaml") || p.endsWith(".yml") ? formatDocs(parseYamlDocs(t, p)) : t);
    } catch {
      out[p] = t;
    }
  }
  return JSON.stringify(out);
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
