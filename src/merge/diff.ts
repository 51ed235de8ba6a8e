import { diffComm } from "node-diff3";
import type { FileTree } from "../kpt/tree.js";
import { normalizedFiles } from "./package-merge.js";

/**
 * `pkg diff` as pure functions: what changed locally since the package was cloned (local against the
 * upstream at upstreamLock's commit), and what the upstream changed since (lock commit against the
 * target ref). Resource files are compared after kpt's merge comments are added, so only real edits show.
 */
export interface FileDiff {
  file: string;
  status: "added" | "removed" | "modified";
  /** Unified-style hunks: lines prefixed with " ", "-" or "+". */
  lines: string[];
}

export interface PackageDiff {
  ref: string;
  commit: string;
  local: FileDiff[];
  upstream: FileDiff[];
}

export function diffFileTrees(before: FileTree, after: FileTree, ignore: (p: string) => boolean): FileDiff[] {
  const a = normalizedFiles(before);
  const b = normalizedFiles(after);
  const out: FileDiff[] = [];
  for (const p of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (ignore(p)) continue;
    const x = a.get(p);
    const y = b.get(p);
    if (x === y) continue;
    const status = x === undefined ? "added" : y === undefined ? "removed" : "modified";
    out.push({ file: p, status, lines: lineDiff(x ?? "", y ?? "") });
  }
  return out;
}

function lineDiff(a: string, b: string): string[] {
  const split = (t: string) => (t === "" ? [] : t.replace(/\n$/, "").split("\n"));
  const out: string[] = [];
  for (const part of diffComm(split(a), split(b))) {
    if (part.common) {
      const c = part.common;
      if (c.length <= 6) out.push(...c.map((l) => ` ${l}`));
      else out.push(...c.slice(0, 3).map((l) => ` ${l}`), " ...", ...c.slice(-3).map((l) => ` ${l}`));
    } else {
      // a difference: node-diff3 gives both sides, one of them maybe empty
      out.push(...part.buffer1.map((l) => `-${l}`), ...part.buffer2.map((l) => `+${l}`));
    }
  }
  return out;
}

export function formatDiff(d: PackageDiff): string {
  const section = (title: string, diffs: FileDiff[]) =>
    diffs.length === 0
      ? `${title}: none\n`
      : `${title}:\n${diffs.map((f) => `--- ${f.status}: ${f.file}\n${f.lines.join("\n")}\n`).join("")}`;
  return `${section("Local changes since the package was fetched", d.local)}\n${section(
    `Upstream changes up to ${d.ref} (${d.commit.slice(0, 12)})`,
    d.upstream,
  )}`;
}
