import { toBytes } from "./utf8.js";

/**
 * Decoding of string and bytes literals (Go starlark's syntax.unquote). Both decode to byte strings (one
 * char per byte, see utf8.ts): a string literal to the UTF-8 encoding of its text.
 */

export type Unquoted = { value: string; bytes: boolean } | { error: string };

const SIMPLE: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
};

export function unquote(quoted: string): Unquoted {
  let raw = false;
  let bytes = false;
  let q = quoted;
  while (q[0] === "r" || q[0] === "b") {
    if (q[0] === "r") raw = true;
    else bytes = true;
    q = q.slice(1);
  }
  const triple = q.length >= 6 && q.slice(0, 3) === q.slice(-3) && q[0] === q[1] && q[1] === q[2];
  const body = triple ? q.slice(3, -3) : q.slice(1, -1);
  if (raw || !body.includes("\\")) return { value: toBytes(body), bytes };
  let out = "";
  for (let i = 0; i < body.length; ) {
    const c = body.charAt(i);
    if (c !== "\\") {
      out += bytes ? toBytes(c) : c;
      i++;
      continue;
    }
    const e = body[i + 1] ?? "";
    if (e === "\n") {
      i += 2;
      continue;
    }
    if (e in SIMPLE) {
      out += SIMPLE[e];
      i += 2;
      continue;
    }
    if (e >= "0" && e <= "7") {
      let j = i + 1;
      while (j < body.length && j < i + 4 && body.charAt(j) >= "0" && body.charAt(j) <= "7") j++;
      const n = Number.parseInt(body.slice(i + 1, j), 8);
      if (n > 255)
        return {
          error: `non-ASCII octal escape \\${body.slice(i + 1, j)} (use \\u${n.toString(16).padStart(4, "0")} for the UTF-8 encoding of U+${n.toString(16).padStart(4, "0")})`,
        };
      if (!bytes && n >= 128) return { error: `non-ASCII octal escape \\${body.slice(i + 1, j)}` };
      out += String.fromCharCode(n);
      i = j;
      continue;
    }
    if (e === "x") {
      // Go: too few characters left is a truncated escape, non-hex ones an invalid escape
      const hex = body.slice(i + 2, i + 4);
      if (hex.length < 2) return { error: `truncated escape sequence \\x${hex}` };
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return { error: `invalid escape sequence \\x${hex}` };
      const n = Number.parseInt(hex, 16);
      if (!bytes && n >= 128)
        return {
          error: `non-ASCII hex escape \\x${hex} (use \\u${n.toString(16).padStart(4, "0").toUpperCase()} for the UTF-8 encoding of U+${n.toString(16).padStart(4, "0").toUpperCase()})`,
        };
      out += String.fromCharCode(n);
      i += 4;
      continue;
    }
    if (e === "u" || e === "U") {
      const len = e === "u" ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + len);
      if (hex.length < len) return { error: `truncated escape sequence \\${e}${hex}` };
      if (!/^[0-9a-fA-F]+$/.test(hex)) return { error: `invalid escape sequence \\${e}${hex}` };
      const n = Number.parseInt(hex, 16);
      if ((n >= 0xd800 && n < 0xe000) || n > 0x10ffff)
        return { error: `invalid Unicode code point \\${e}${hex}` };
      const ch = String.fromCodePoint(n);
      out += bytes ? toBytes(ch) : ch;
      i += 2 + len;
      continue;
    }
    return { error: `invalid escape sequence \\${e}` };
  }
  // A string literal's \x and octal escapes are ASCII only, so `out` is text; a bytes literal's is bytes.
  return { value: bytes ? out : toBytes(out), bytes };
}
