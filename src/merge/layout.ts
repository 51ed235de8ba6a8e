import { readKptfileStruct } from "../kpt/kptfile.js";
import type { FileTree } from "../kpt/tree.js";
import { hasUpstream } from "./upstream.js";

/** Where packages are in a tree and which files each owns, as kpt's update walks them. */

export const KPTFILE = "Kptfile";

export function join(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

export function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** Directories holding a Kptfile ("" for the root), sorted by depth then name. */
export function packageDirs(tree: FileTree): string[] {
  const dirs = [...tree.keys()].filter((p) => p === KPTFILE || p.endsWith(`/${KPTFILE}`)).map(dirOf);
  return dirs.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function depth(dir: string): number {
  return dir === "" ? 0 : dir.split("/").length;
}

/** True when the package's Kptfile names its own git upstream (a package fetched on its own). */
export function isRemotePackage(tree: FileTree, dir: string): boolean {
  const bytes = tree.get(join(dir, KPTFILE));
  if (!bytes) return false;
  try {
    const kf = readKptfileStruct(bytes.toString("utf8"), join(dir, KPTFILE));
    return hasUpstream(kf);
  } catch {
    return false;
  }
}

/** True when `path` is inside `dir` (or `dir` is the root). */
export function within(path: string, dir: string): boolean {
  return dir === "" || path === dir || path.startsWith(`${dir}/`);
}

/**
 * The files `pkgDir` owns: below it and not below any of `nested` (other package directories),
 * paths relative to `pkgDir`.
 */
export function ownedFiles(tree: FileTree, pkgDir: string, nested: readonly string[]): Map<string, Buffer> {
  const inner = nested.filter((d) => d !== pkgDir && within(d, pkgDir));
  const out = new Map<string, Buffer>();
  for (const [path, bytes] of tree) {
    if (!within(path, pkgDir)) continue;
    if (inner.some((d) => within(path, d))) continue;
    out.set(pkgDir === "" ? path : path.slice(pkgDir.length + 1), bytes);
  }
  return out;
}

export function isYamlPath(path: string): boolean {
  return path.endsWith(".yaml") || path.endsWith(".yml");
}
