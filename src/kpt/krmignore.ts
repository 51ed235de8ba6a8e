import { minimatch } from "minimatch";

/**
 * A matcher for a package's `.krmignore` (gitignore syntax, as kpt reads it): paths relative to the
 * package directory. Blank lines and `#` comments are skipped; `!` re-includes; a pattern without a
 * slash matches at any depth; a trailing slash matches a directory and everything below it.
 */
export function krmIgnoreMatcher(text: string): (relPath: string) => boolean {
  const rules = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((line) => {
      const negate = line.startsWith("!");
      let pattern = negate ? line.slice(1) : line;
      const dirOnly = pattern.endsWith("/");
      if (dirOnly) pattern = pattern.slice(0, -1);
      const anchored = pattern.includes("/");
      if (pattern.startsWith("/")) pattern = pattern.slice(1);
      const base = anchored ? pattern : `**/${pattern}`;
      return { negate, globs: dirOnly ? [`${base}/**`] : [base, `${base}/**`] };
    });
  return (relPath) => {
    let ignored = false;
    for (const r of rules) {
      if (r.globs.some((g) => minimatch(relPath, g, { dot: true }))) ignored = !r.negate;
    }
    return ignored;
  };
}
