/**
 * Spelling suggestions for error messages, as Go starlark's internal/spell: the candidate nearest to `x`
 * by edit distance, ignoring case and underscores, if it needs at most half as many edits as x is long.
 */
function nearest(x: string, candidates: Iterable<string>): string | undefined {
  const fold = (s: string) => s.replace(/_/g, "").toLowerCase();
  const fx = fold(x);
  let best: string | undefined;
  let bestD = Math.floor((fx.length + 1) / 2);
  for (const c of candidates) {
    const d = levenshtein(fx, fold(c), bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** Edit distance between a and b, or `max` once it is certain to be at least that. */
function levenshtein(a: string, b: string, max: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) >= max) return max;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      //  prev and row hold b.length + 1 distances, j <= b.length
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      row.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= max) return max;
    prev = row;
  }
  return prev[b.length] ?? max;
}

/** Appends Go's suggestion suffix: ` (did you mean <prefix><name>?)`. */
export function suggest(msg: string, x: string, candidates: Iterable<string>, prefix = ""): string {
  const n = nearest(x, candidates);
  return n === undefined ? msg : `${msg} (did you mean ${prefix}${n}?)`;
}
