/**
 * Go's `%q` / `strconv.Quote` for messages that must read exactly as the Go catalog functions print them:
 * a double-quoted literal, printable characters kept, the rest escaped with Go's escapes.
 */

const SHORT_ESCAPES: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function goQuoteString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x20 && code < 0x7f) out += ch;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/** Go's `%v` of a `[]string`: `[a b c]`. */
export function goStringList(values: readonly string[]): string {
  return `[${values.join(" ")}]`;
}
