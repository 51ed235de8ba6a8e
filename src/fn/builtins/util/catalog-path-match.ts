/**
 * search-replace's `by-path` patterns: `.`-separated elements where `*` matches one element, `**` any
 * number of them, and `name[*]` (or `*[*]`) any element of a sequence.
 */

/** True when the traversed path (`spec.containers[0].image`) matches the pattern. */
export function pathMatches(pattern: string, path: string): boolean {
  if (pattern === "") return false;
  const want = pattern.split(".");
  const have = (path.startsWith(".") ? path.slice(1) : path).split(".");
  // match[i][j]: the first i path elements match the first j pattern elements.
  const match: boolean[][] = Array.from({ length: have.length + 1 }, () =>
    new Array<boolean>(want.length + 1).fill(false),
  );
  const at = (i: number, j: number): boolean => match[i]?.[j] === true;
  const set = (i: number, j: number, value: boolean): void => {
    const row = match[i];
    if (row) row[j] = value;
  };
  set(0, 0, true);
  for (let j = 1; j <= want.length; j++) {
    if (want[j - 1] === "**") set(0, j, at(0, j - 1));
  }
  for (let i = 1; i <= have.length; i++) {
    for (let j = 1; j <= want.length; j++) {
      const p = want[j - 1] ?? "";
      if (p === "**") set(i, j, at(i, j - 1) || at(i - 1, j));
      else if (p === "*" || elementMatches(have[i - 1] ?? "", p)) set(i, j, at(i - 1, j - 1));
    }
  }
  return at(have.length, want.length);
}

function elementMatches(element: string, pattern: string): boolean {
  if (element === pattern) return true;
  if (!element.includes("[")) return false;
  const [name, index] = element.split("[");
  const [patternName, patternIndex] = pattern.split("[");
  if (patternName !== "*" && name !== patternName) return false;
  return patternIndex !== undefined && (patternIndex === "*]" || index === patternIndex);
}

/** A plain path (`a.b.c`) with no wildcard or empty element. */
export function isAbsolutePath(path: string): boolean {
  return path.split(".").every((e) => e !== "" && !e.includes("*"));
}
