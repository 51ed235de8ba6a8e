/** The code point of one character ([...text] splits text into them). */
function codePoint(c: string): number {
  return c.codePointAt(0) ?? 0;
}

/**
 * The key order of Go's yaml.v3 encoder for a map (its keyList.Less): a "natural" order where runs of
 * digits compare as numbers and, outside a number, non-letters sort before letters.
 */
function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  const isDigit = (c: string | undefined) => c !== undefined && /\p{Nd}/u.test(c);
  const isLetter = (c: string) => /\p{L}/u.test(c);
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] ?? "";
    const y = br[i] ?? "";
    if (x === y) {
      digits = isDigit(x);
      continue;
    }
    const al = isLetter(x);
    const bl = isLetter(y);
    if (al && bl) return codePoint(x) < codePoint(y);
    if (al || bl) return digits ? al : bl;
    let an = 0;
    let bn = 0;
    if (x === "0" || y === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return codePoint(x) < codePoint(y);
  }
  return ar.length < br.length;
}

export function yamlKeyCompare(a: string, b: string): number {
  return yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0;
}
