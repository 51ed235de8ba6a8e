import { minimatch } from "minimatch";

/**
 * A matcher for a package's `.krmignore`, as kpt reads it (kyaml's reader, through
 * monochromegane/go-gitignore — not git's own rules): paths relative to the package directory. Blank
 * lines and `#` comments are skipped. A pattern is anchored to the package directory only when it starts
 * with `/`; any other (`tests`, `tests/*`, `a/b`) matches the last parts of a path at any depth, so
 * `tests/*` leaves `sub/tests/x.yaml` alone too. A trailing slash matches a directory and everything
 * below it. A `!` pattern re-includes what it matches whatever its place in the file: go-gitignore asks
 * the `!` patterns first.
 */
export function krmIgnoreMatcher(text: string | undefined): (relPath: string, isDir?: boolean) => boolean {
  // no .krmignore: nothing is ignored
  const rules = (text ?? "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((line) => {
      const negate = line.startsWith("!");
      let pattern = negate ? line.slice(1) : line;
      const dirOnly = pattern.endsWith("/");
      if (dirOnly) pattern = pattern.slice(0, -1);
      const anchored = pattern.startsWith("/");
      if (anchored) pattern = pattern.slice(1);
      const base = anchored ? pattern : `**/${pattern}`;
      return { negate, dirOnly, base, globs: dirOnly ? [`${base}/**`] : [base, `${base}/**`] };
    });
  const matches = (r: (typeof rules)[number], relPath: string, isDir: boolean) => {
    const globs = isDir && r.dirOnly ? [r.base, ...r.globs] : r.globs;
    return globs.some((g) => minimatch(relPath, g, { dot: true }));
  };
  const accept = rules.filter((r) => r.negate);
  const ignore = rules.filter((r) => !r.negate);
  return (relPath, isDir = false) =>
    !accept.some((r) => matches(r, relPath, isDir)) && ignore.some((r) => matches(r, relPath, isDir));
}

/**
 * Which files of a tree a kpt reader skips, as kyaml's package reader decides for `fn eval`: the
 * `.krmignore` at the root applies below it, and each subpackage (a directory with a Kptfile) is
 * governed by its own `.krmignore` alone (none means nothing is ignored there).
 */
export function krmIgnoredInTree(tree: ReadonlyMap<string, unknown>): (path: string) => boolean {
  const packageDirs = new Set([""]);
  for (const p of tree.keys()) {
    if (p === "Kptfile") continue;
    if (p.endsWith("/Kptfile")) packageDirs.add(p.slice(0, -"/Kptfile".length));
  }
  const matchers = new Map<string, (rel: string, isDir?: boolean) => boolean>();
  const matcherFor = (dir: string): ((rel: string, isDir?: boolean) => boolean) => {
    let m = matchers.get(dir);
    if (!m) {
      const text = tree.get(dir === "" ? ".krmignore" : `${dir}/.krmignore`);
      m = krmIgnoreMatcher(text === undefined ? undefined : String(text));
      matchers.set(dir, m);
    }
    return m;
  };
  return (path) => {
    // Every package directory between the root and the file: an ignored one hides all below it.
    const parts = path.split("/");
    let owner = "";
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (matcherFor(owner)(relativeTo(owner, dir), true)) return true;
      if (packageDirs.has(dir)) owner = dir;
    }
    return matcherFor(owner)(relativeTo(owner, path));
  };
}

function relativeTo(dir: string, path: string): string {
  return dir === "" ? path : path.slice(dir.length + 1);
}
