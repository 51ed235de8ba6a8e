/**
 * Scalar rules of the yaml.v3 encoder that kpt writes files with: which plain texts resolve to a
 * non-string type (and so must be quoted when they hold a string), which characters are printable, and
 * how a double-quoted scalar is escaped.
 */

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const BOOLS = new Set(["true", "True", "TRUE", "false", "False", "FALSE"]);
const SPECIAL_FLOATS = new Set([
  ".inf",
  ".Inf",
  ".INF",
  "+.inf",
  "+.Inf",
  "+.INF",
  "-.inf",
  "-.Inf",
  "-.INF",
]);
const NANS = new Set([".nan", ".NaN", ".NAN"]);
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** Go's strconv.ParseInt(s, 0, 64) syntax: sign, 0x/0o/0b/0 prefixes, underscores between digits. */
const INT = /^[-+]?(0[xX](_?[0-9a-fA-F])+|0[oO](_?[0-7])+|0[bB](_?[01])+|0(_?[0-7])*|[1-9](_?[0-9])*)$/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?$/;

/** True when yaml.v3 reads the plain text `value` as a string (not null, bool, number or timestamp). */
export function resolvesAsString(value: string): boolean {
  if (NULLS.has(value) || BOOLS.has(value) || SPECIAL_FLOATS.has(value) || NANS.has(value)) return false;
  if (value === "<<") return false;
  const c = value[0];
  if (c === undefined) return false;
  if ((c >= "0" && c <= "9") || c === "-" || c === "+" || c === ".") {
    if (INT.test(value) || FLOAT.test(value)) return false;
    if (TIMESTAMP.test(value)) return false;
  }
  return true;
}

/** Characters libyaml does not print as they are (control characters, BOM, non-BMP). Newline is printable. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ud800-\udfff\ufeff\ufffe\uffff]/;

export function hasUnprintable(value: string): boolean {
  return UNPRINTABLE.test(value);
}

/** As hasUnprintable, but a tab is fine: yaml.v3 writes tabs as they are in block (literal) scalars. */
export function hasUnprintableExceptTab(value: string): boolean {
  return UNPRINTABLE.test(value.replaceAll("\t", " "));
}

const ESCAPES: Record<string, string> = {
  "\0": "\\0",
  "\x07": "\\a",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\x0b": "\\v",
  "\f": "\\f",
  "\r": "\\r",
  "\x1b": "\\e",
  '"': '\\"',
  "\\": "\\\\",
  "\x85": "\\N",
  "\u2028": "\\L",
  "\u2029": "\\P",
};

/** A double-quoted scalar as yaml.v3 writes it (no line folding: kpt's encoder has no width limit). */
export function quoteDouble(value: string): string {
  let out = '"';
  for (const ch of value) {
    const esc = ESCAPES[ch];
    if (esc !== undefined) {
      out += esc;
      continue;
    }
    const cp = ch.codePointAt(0)!; // ch is one code point of value, never empty
    if (cp > 0xffff || UNPRINTABLE.test(ch)) {
      if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
      else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
      else out += `\\U${hex(cp, 8)}`;
      continue;
    }
    out += ch;
  }
  return `${out}"`;
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, "0");
}
