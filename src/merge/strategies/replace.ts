import type { FileTree } from "../../kpt/tree.js";
import { formatKptfile, mergeKptfile } from "../kptfile.js";
import { isRemotePackage, join, KPTFILE, packageDirs, within } from "../layout.js";
import { readKptfile, sameFiles } from "../package-merge.js";
import { type MergeChange, MergeError, type MergeInput, type MergeResult } from "../types.js";

/**
 * force-delete-replace: the local package's content is replaced by the new upstream's, local edits
 * are lost; the root Kptfile keeps its name and upstream (and gets the upstream's pipeline and info).
 */
export function forceDeleteReplace(input: MergeInput): MergeResult {
  return replaceWith(input, false);
}

/**
 * copy-merge: every upstream file is copied over the local one of the same name; files only the
 * local package has are kept.
 */
export function copyMerge(input: MergeInput): MergeResult {
  return replaceWith(input, true);
}

/** fast-forward: refuses when the local package differs from the upstream it was cloned from; else replace. */
export function fastForward(input: MergeInput): MergeResult {
  const changed = locallyChanged(input.original, input.local);
  if (changed.length > 0) {
    throw new MergeError(
      `the local package has changes (${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", …" : ""}); ` +
        "fast-forward only updates unchanged packages: commit them and use --strategy resource-merge",
    );
  }
  return replaceWith(input, false);
}

function locallyChanged(original: FileTree, local: FileTree): string[] {
  const out: string[] = [];
  for (const p of new Set([...original.keys(), ...local.keys()])) {
    if (p === KPTFILE) continue;
    const o = original.get(p);
    const l = local.get(p);
    if (!o || !l) {
      out.push(p);
      continue;
    }
    if (!sameFiles(new Map([[p, o]]), new Map([[p, l]]))) out.push(p);
  }
  return out.sort();
}

function replaceWith(input: MergeInput, keepLocalOnly: boolean): MergeResult {
  const { updated, local } = input;
  const remote = packageDirs(local).filter((d) => d !== "" && isRemotePackage(local, d));
  const keep = (p: string) => remote.some((r) => within(p, r));
  const tree: FileTree = new Map();
  const changes: MergeChange[] = [];
  for (const [p, b] of local) if (keep(p) || (keepLocalOnly && !updated.has(p))) tree.set(p, b);
  for (const [p, b] of updated) {
    if (keep(p) || p === KPTFILE) continue;
    tree.set(p, b);
    const before = local.get(p);
    if (!before) changes.push({ file: p, action: "added" });
    else if (!before.equals(b)) changes.push({ file: p, action: "modified" });
  }
  for (const p of local.keys())
    if (!tree.has(p) && p !== KPTFILE) changes.push({ file: p, action: "removed" });
  const localKf = readKptfile(local, KPTFILE);
  const kf = mergeKptfile(localKf, readKptfile(updated, KPTFILE), {}, false);
  tree.set(KPTFILE, Buffer.from(formatKptfile(kf)));
  if (!local.has(KPTFILE)) throw new MergeError("the local package has no Kptfile");
  void join;
  return { tree, conflicts: [], changes };
}
