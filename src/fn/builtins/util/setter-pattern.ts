import { compileGoRegexp, quoteMeta } from "./go-regexp.js";

/**
 * Setter references as apply-setters reads them: a line comment `# kpt-set: <pattern>` where the pattern
 * holds `${name}` references, e.g. `# kpt-set: ${image}:${tag}`.
 */

/** What a comment (its raw text, `#` kept) must start with to be a setter comment. */
const SETTER_COMMENT = "# kpt-set: ";

/** One setter value, in the order the function config lists them. */
export interface SetterValue {
  name: string;
  value: string;
}

/** The pattern of a setter comment (first comment line only), or "" when the comment is not one. */
export function setterPatternOf(comment: string | null | undefined): string {
  if (!comment) return "";
  const nl = comment.indexOf("\n");
  const line = nl < 0 ? comment : comment.slice(0, nl);
  if (!line.startsWith(SETTER_COMMENT)) return "";
  return line.slice(SETTER_COMMENT.length).trim();
}

/** The `${...}` references in a pattern, in order, duplicates kept (e.g. `["${image}", "${tag}"]`). */
export function setterRefs(pattern: string): string[] {
  return pattern.match(/\$\{[^}]*\}/g) ?? [];
}

/** The name inside a reference: `${tag}` → `tag`. */
export function refName(ref: string): string {
  const trimmed = ref.trim();
  const start = trimmed.startsWith("${") ? 2 : 0;
  const end = trimmed.endsWith("}") ? trimmed.length - 1 : trimmed.length;
  return trimmed.slice(start, end);
}

/** True when the pattern references at least one of the given setters. */
export function referencesAny(pattern: string, setters: readonly SetterValue[]): boolean {
  return setters.some((s) => pattern.includes(`\${${s.name}}`));
}

/** An array field's pattern must be exactly one reference, e.g. `${environments}`. */
export function isArrayPattern(pattern: string): boolean {
  return setterRefs(pattern).length === 1 && pattern.startsWith("${") && pattern.endsWith("}");
}

/**
 * Values of the references a field's current value already holds, found by matching the value against
 * the pattern: `my-app.${stage}.${tld}` over `my-app.dev.com` gives stage=dev, tld=com. Empty when the
 * value does not match or a reference would be empty.
 */
export function currentSetterValues(pattern: string, value: string): Map<string, string> {
  const refs = setterRefs(pattern);
  const out = new Map<string, string>();
  if (refs.length === 0) return out;
  const literals = pattern.split(/\$\{[^}]*\}/);
  const source = literals.map(quoteMeta).join("(.*)");
  const match = compileGoRegexp(source).submatch(value);
  if (!match) return out;
  const groups = match.slice(1);
  if (groups.length !== refs.length) return out;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (g === undefined || g === "") return new Map();
    out.set(refName(refs[i] ?? ""), g);
  }
  return out;
}

/**
 * apply-setters v0.1.0's reading of a current value: the pattern itself is the regular expression (its
 * text unescaped), each reference a group named after the setter, matched anywhere in the value; a name
 * that cannot name a group (`project-id`) or a pattern that does not compile gives no values, an empty
 * group gives an empty value, and a name given twice takes its last group.
 */
export function currentSetterValuesByName(pattern: string, value: string): Map<string, string> {
  const out = new Map<string, string>();
  const refs = setterRefs(pattern);
  if (refs.length === 0) return out;
  const names = refs.map(refName);
  if (names.some((n) => !/^[A-Za-z0-9_]+$/.test(n))) return out;
  let match: string[] | undefined;
  try {
    match = compileGoRegexp(pattern.split(/\$\{[^}]*\}/).join("(.*)")).submatch(value);
  } catch {
    return out;
  }
  if (!match) return out;
  names.forEach((name, i) => {
    out.set(name, match[i + 1] ?? "");
  });
  return out;
}

/** Replaces every `${name}` of the given values in the text. */
export function substitute(text: string, values: Iterable<readonly [string, string]>): string {
  let out = text;
  for (const [name, value] of values) out = out.split(`\${${name}}`).join(value);
  return out;
}
