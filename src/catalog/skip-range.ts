import { compare, parse, type SemVer } from "semver";

/**
 * A channel entry's `skipRange`, read with the grammar operator-registry reads it with (blang/semver's
 * ranges), not npm's: comparisons `<`, `<=`, `>`, `>=`, `=`/`==` or none (equal), `!=`/`!` (not equal) on a
 * full version `1.2.3` (pre-release allowed), or on one ending in `x` (`1.x`, `1.2.x`, a wildcard);
 * comparisons separated by spaces must all hold, and `||` separates alternatives. npm's own syntax
 * differs where it matters here — it takes `<2`, `~1.2.0`, `^1.0.0`, `1.0.0 - 2.0.0` and a leading `v`,
 * which OLM refuses, and it has no `!=` —, so the range is parsed here and only versions go to `semver`.
 * A revision `vN` is read as version N.0.0 (see docs/catalog.md).
 */
type SkipRange = (version: SemVer) => boolean;

export type ParsedRange = { ok: true; range: SkipRange } | { ok: false; reason: string };

const OPERATORS: Record<string, (c: number) => boolean> = {
  "": (c) => c === 0,
  "=": (c) => c === 0,
  "==": (c) => c === 0,
  "!": (c) => c !== 0,
  "!=": (c) => c !== 0,
  ">": (c) => c > 0,
  ">=": (c) => c >= 0,
  "<": (c) => c < 0,
  "<=": (c) => c <= 0,
};

export function parseSkipRange(text: string): ParsedRange {
  const terms = splitTerms(text);
  if (terms.length === 0) return { ok: false, reason: "it is empty" };
  if (terms[0] === "||") return { ok: false, reason: "it starts with ||" };
  if (terms.at(-1) === "||") return { ok: false, reason: "it ends with ||" };
  const alternatives: SkipRange[] = [];
  let all: SkipRange[] = [];
  for (const term of [...terms, "||"]) {
    if (term === "||") {
      if (all.length === 0) return { ok: false, reason: "it has || twice in a row" };
      const each = all;
      alternatives.push((v) => each.every((f) => f(v)));
      all = [];
      continue;
    }
    const parsed = parseTerm(term);
    if (typeof parsed === "string") return { ok: false, reason: parsed };
    all.push(...parsed);
  }
  return { ok: true, range: (v) => alternatives.some((f) => f(v)) };
}

/** Splits on spaces, except a space right after a comparison sign (`>= 1.0.0` is one term). */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const ch of text) {
    if (ch === " " && current !== "" && !/[<>=!]$/.test(current)) {
      out.push(current);
      current = "";
    } else if (ch !== " ") current += ch;
  }
  if (current !== "") out.push(current);
  return out;
}

/** One comparison, as one or two tests (a wildcard is a span: `1.x` is `>=1.0.0 <2.0.0`); else why not. */
function parseTerm(term: string): SkipRange[] | string {
  const digit = term.search(/[0-9]/);
  if (digit < 0) return `"${term}" names no version`;
  const operator = term.slice(0, digit);
  const versionText = term.slice(digit);
  const test = OPERATORS[operator];
  if (!test) return `"${operator}" in "${term}" is not a comparison (<, <=, >, >=, =, == or !=)`;
  const wildcard = /^(\d+)\.x(\.x)?$|^(\d+)\.(\d+)\.x$/.exec(versionText);
  if (wildcard) return wildcardTerm(operator, versionText, term);
  const version = parse(versionText);
  if (!version || versionText.startsWith("v") || versionText.startsWith("="))
    return `"${versionText}" in "${term}" is not a version such as 1.2.3 (major.minor.patch, no leading zeros)`;
  return [(v) => test(compare(v, version))];
}

/** `1.x`, `1.x.x`, `1.2.x` with a comparison: the span of versions it stands for, compared as a whole. */
function wildcardTerm(operator: string, text: string, term: string): SkipRange[] | string {
  const parts = text.split(".");
  const major = Number(parts[0]);
  const minor = parts[1] === "x" ? undefined : Number(parts[1]);
  const low = parse(`${major}.${minor ?? 0}.0`);
  const high = parse(minor === undefined ? `${major + 1}.0.0` : `${major}.${minor + 1}.0`);
  if (!low || !high) return `"${text}" in "${term}" is not a version such as 1.2.x`;
  const atLeast = (v: SemVer) => compare(v, low) >= 0;
  const below = (v: SemVer) => compare(v, high) < 0;
  switch (operator) {
    case ">":
    case "<=":
      return [operator === ">" ? (v) => !below(v) : below];
    case ">=":
      return [atLeast];
    case "<":
      return [(v) => !atLeast(v)];
    case "!":
    case "!=":
      return [(v) => !atLeast(v) || !below(v)];
    default:
      return [atLeast, below];
  }
}
