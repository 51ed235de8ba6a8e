import type { FileTree } from "../../kpt/tree.js";
import { isRemotePackage, join, KPTFILE, ownedFiles, packageDirs, within } from "../layout.js";
import { mergeOnePackage, sameFiles } from "../package-merge.js";
import {
  type MergeChange,
  type MergeConflict,
  MergeError,
  type MergeInput,
  type StrategyResult,
} from "../types.js";

/**
 * kpt's default strategy, package by package (root first, then subpackages by depth):
 * a subpackage added upstream is copied; deleted upstream is deleted unless changed locally; deleted
 * locally stays deleted; added on both sides is an error; present everywhere is merged
 * (Kptfile, resources field by field, other files line by line). Subpackages with an upstream of
 * their own are left to their own update.
 */
export function resourceMerge(input: MergeInput): StrategyResult {
  const { original, updated, local } = input;
  const remote = packageDirs(local).filter((d) => d !== "" && isRemotePackage(local, d));
  const all = [...new Set([...packageDirs(original), ...packageDirs(updated), ...packageDirs(local)])];
  const nested = all.filter((d) => d !== "");
  const dirs = ["", ...nested.filter((d) => !remote.some((r) => within(d, r)))];
  const tree: FileTree = new Map(local);
  const changes: MergeChange[] = [];
  const conflicts: MergeConflict[] = [];
  const formatted = new Set<string>();

  for (const dir of dirs) {
    const isRoot = dir === "";
    const exists = (t: FileTree) => isRoot || t.has(join(dir, KPTFILE));
    const [o, u, l] = [exists(original), exists(updated), exists(tree)];
    const own = (t: FileTree) => ownedFiles(t, dir, nested);
    if (!o && l && u)
      throw new MergeError(`subpackage "${dir}" was added both upstream and locally; remove one`);
    if (!o && !l && u) {
      for (const [p, b] of own(updated)) {
        tree.set(join(dir, p), b);
      }
      changes.push({ file: join(dir, KPTFILE), action: "added" });
    } else if (o && l && !u) {
      const origFiles = new Map([...original].filter(([p]) => within(p, dir)));
      const localFiles = new Map([...tree].filter(([p]) => within(p, dir)));
      if (sameFiles(origFiles, localFiles)) {
        for (const p of localFiles.keys()) tree.delete(p);
        changes.push({ file: join(dir, KPTFILE), action: "removed" });
      }
    } else if (o && l && u) {
      const result = mergeOnePackage(
        dir,
        { original: own(original), updated: own(updated), local: own(tree) },
        isRoot,
      );
      for (const p of own(tree).keys()) tree.delete(join(dir, p));
      for (const [p, b] of result.files) tree.set(join(dir, p), b);
      for (const p of result.formatted) formatted.add(join(dir, p));
      changes.push(...result.changes);
      conflicts.push(...result.conflicts);
    }
  }
  return { tree, conflicts, changes, formatted };
}
