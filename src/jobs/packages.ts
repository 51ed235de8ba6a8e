import type { FileTree } from "../kpt/tree.js";

/** The directories holding a Kptfile ("" for the repository root), from a tree's paths. */
export function packageDirs(paths: Iterable<string>): string[] {
  const dirs: string[] = [];
  for (const p of paths) {
    if (p === "Kptfile") dirs.push("");
    else if (p.endsWith("/Kptfile")) dirs.push(p.slice(0, -"/Kptfile".length));
  }
  return dirs.sort();
}

/** Whether `path` lies inside directory `dir` ("" holds everything). */
export function isInside(path: string, dir: string): boolean {
  return dir === "" || path === dir || path.startsWith(`${dir}/`);
}

/** Whether the package at `path` lies under the configuration's `packageRoot` ("." holds every one). */
export function underPackageRoot(path: string, packageRoot: string): boolean {
  return isInside(path, packageRoot === "." ? "" : packageRoot);
}

/** What the bot says of a package outside `packageRoot`, and what to do. */
export function outsidePackageRoot(path: string, packageRoot: string): string {
  return `\`${path}\` is not under \`packageRoot: ${packageRoot}\` (.github/porchlight.yml), so porchlight leaves it alone; move the package under ${packageRoot}/, or change packageRoot`;
}

/**
 * The packages a set of changed paths touched, each named by its outermost package directory (a
 * subpackage renders with its parent). The repository root is never a package here: porchlight's
 * packages are directories, so branch and tag names have a package path.
 */
export function touchedPackages(changed: readonly string[], dirs: readonly string[]): string[] {
  const candidates = dirs.filter((d) => d !== "");
  const outermost = candidates.filter((d) => !candidates.some((o) => o !== d && isInside(d, o)));
  return outermost.filter((d) => changed.some((p) => isInside(p, d)));
}

/** Whether two trees hold the same files with the same bytes. */
export function treesEqual(a: FileTree, b: FileTree): boolean {
  if (a.size !== b.size) return false;
  for (const [path, bytes] of a) {
    const other = b.get(path);
    if (!other?.equals(bytes)) return false;
  }
  return true;
}

/** The paths whose content differs between two trees (added, removed or changed), sorted. */
export function differingPaths(a: FileTree, b: FileTree): string[] {
  const out = new Set<string>();
  for (const [path, bytes] of a) {
    const other = b.get(path);
    if (!other?.equals(bytes)) out.add(path);
  }
  for (const path of b.keys()) if (!a.has(path)) out.add(path);
  return [...out].sort();
}
