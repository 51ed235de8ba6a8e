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
/** Go's strconv.ParseInt(s, 0, 64) syntax once yaml.v3 has taken every `_` out: sign, 0x/0o/0b/0 prefixes. */
const INT = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Whether yaml.v3 reads `plain` as an int: Go's ParseInt, or ParseUint, at base 0 and 64 bits takes it.
 * One that overflows both is no int (yaml.v3 then tries it as a float, and else keeps a string).
 */
function goInt(plain: string): boolean {
  const m = INT.exec(plain);
  if (!m) return false;
  const digits = m[2] ?? "";
  const v = BigInt(/^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits.toLowerCase());
  if (m[1] === "-") return v <= INT64_MAX + 1n;
  return v <= (m[1] === "+" ? INT64_MAX : UINT64_MAX);
}

/** Whether yaml.v3 reads `plain` as a float: its float pattern, and Go's ParseFloat without overflow. */
function goFloat(plain: string): boolean {
  return FLOAT.test(plain) && Number.isFinite(Number(plain));
}
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?$/;

/** True when yaml.v3 reads the plain text `value` as a string (not null, bool, number or timestamp). */
export function resolvesAsString(value: string): boolean {
  if (NULLS.has(value) || BOOLS.has(value) || SPECIAL_FLOATS.has(value) || NANS.has(value)) return false;
  if (value === "<<") return false;
  const c = value[0];
  if (c === undefined) return false;
  if ((c >= "0" && c <= "9") || c === "-" || c === "+" || c === ".") {
    // yaml.v3 takes every `_` out before it tries a number (resolve.go)
    const plain = value.replaceAll("_", "");
    if (goInt(plain) || goFloat(plain)) return false;
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
