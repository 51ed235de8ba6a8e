import { fail } from "../errors.js";
import { encodeRune } from "../utf8.js";
import { None, normInt, StarFloat, type Value } from "../values/core.js";
import { StarDict } from "../values/dict.js";
import { StarList } from "../values/list.js";

/** A decode failure at byte offset `at` (Go's `json.decode: at offset N, msg`). */
class JsonSyntax {
  constructor(
    readonly msg: string,
    readonly at: number,
  ) {}
}

const SPACE = new Set([" ", "\t", "\n", "\r"]);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** Go's %q of a byte, as its JSON decoder quotes an unexpected character. */
function q(c: string): string {
  const n = c.charCodeAt(0);
  if (c === "'") return "'\\''";
  if (n >= 0x20 && n < 0x7f) return `'${c}'`;
  const esc: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  return `'${esc[c] ?? (n < 0x80 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u00${n.toString(16)}`)}'`;
}

/**
 * go.starlark.net/lib/json's decode over a byte string: objects become dicts (later keys win), arrays
 * lists, numbers with '.', 'e' or a sign after the first char floats, others (arbitrary-size) ints.
 */
export function decodeJSON(s: string): Value {
  const d = new JsonDecoder(s);
  try {
    const x = d.value();
    if (d.skip()) d.err(`unexpected character ${q(s.charAt(d.i))} after value`);
    return x;
  } catch (e) {
    if (e instanceof JsonSyntax) fail(`json.decode: at offset ${e.at}, ${e.msg}`);
    throw e;
  }
}

/** One decode: the text and the offset `i` of the next byte to read, one method per kind of value. */
class JsonDecoder {
  i = 0;
  constructor(readonly s: string) {}

  err(msg: string): never {
    throw new JsonSyntax(msg, this.i);
  }

  /** Skips white space; whether anything is left. */
  skip(): boolean {
    const s = this.s;
    while (this.i < s.length && SPACE.has(s.charAt(this.i))) this.i++;
    return this.i < s.length;
  }

  /** The next byte after white space, not consumed. */
  next(): string {
    return this.skip() ? this.s.charAt(this.i) : this.err("unexpected end of file");
  }

  value(): Value {
    const b = this.next();
    switch (b) {
      case '"':
        return this.string();
      case "n":
      case "t":
      case "f":
        return this.word(b);
      case "[":
        return this.array();
      case "{":
        return this.object();
      default:
        if (isDigit(b) || b === "-") return this.number();
    }
    return this.err(`unexpected character ${q(b)}`);
  }

  /** `null`, `true` or `false`, by its first byte `b`. */
  word(b: "n" | "t" | "f"): Value {
    const word = b === "n" ? "null" : b === "t" ? "true" : "false";
    if (!this.s.startsWith(word, this.i)) return this.err(`unexpected character ${q(b)}`);
    this.i += word.length;
    return b === "n" ? None : b === "t";
  }

  array(): StarList {
    const elems: Value[] = [];
    this.i++;
    if (this.next() !== "]") {
      for (;;) {
        elems.push(this.value());
        const c = this.next();
        if (c !== ",") {
          if (c !== "]") this.err(`got ${q(c)}, want ',' or ']'`);
          break;
        }
        this.i++;
      }
    }
    this.i++;
    return new StarList(elems);
  }

  object(): StarDict {
    const d = new StarDict();
    this.i++;
    if (this.next() !== "}") {
      for (;;) {
        if (this.next() !== '"') {
          const k = this.value();
          this.err(
            `got ${typeof k === "object" ? k.typeName : typeof k === "boolean" ? "bool" : "int"} for object key, want string`,
          );
        }
        const key = this.string();
        if (this.next() !== ":") this.err(`after object key, got ${q(this.s.charAt(this.i))}, want ':' `);
        this.i++;
        d.set(key, this.value());
        const c = this.next();
        if (c !== ",") {
          if (c !== "}") this.err(`in object, got ${q(c)}, want ',' or '}'`);
          break;
        }
        this.i++;
      }
    }
    this.i++;
    return d;
  }

  number(): Value {
    const s = this.s;
    let float = false;
    let j = this.i + 1;
    for (; j < s.length; j++) {
      const c = s.charAt(j);
      if (isDigit(c)) continue;
      if (c === "." || c === "e" || c === "E" || c === "+" || c === "-") float = true;
      else break;
    }
    const num = s.slice(this.i, j);
    this.i = j;
    const digits = num[0] === "-" ? num.slice(1) : num;
    if (digits === "" || (digits[0] === "0" && isDigit(digits[1]))) this.err(`invalid number: ${num}`);
    if (float) {
      if (!/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(num)) this.err(`invalid number: ${num}`);
      return new StarFloat(Number(num));
    }
    if (!/^-?\d+$/.test(num)) this.err(`invalid number: ${num}`);
    return normInt(BigInt(num));
  }

  string(): string {
    const s = this.s;
    let safe = true;
    let j = this.i + 1;
    let closed = false;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 0x5c) {
        safe = false;
        j++;
      } else if (c === 0x22) {
        closed = true;
        j++;
        break;
      } else if (c >= 0x80 || c < 0x20) safe = false;
    }
    if (!closed) this.err("unclosed string literal");
    const body = s.slice(this.i + 1, j - 1);
    this.i = j;
    return safe ? body : unquote(body, (msg) => this.err(msg));
  }
}

const SIMPLE: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Go's encoding/json string unquoting, over bytes: escapes decoded, invalid UTF-8 replaced by U+FFFD. */
function unquote(body: string, err: (msg: string) => never): string {
  let out = "";
  for (let k = 0; k < body.length; ) {
    const c = body.charAt(k);
    if (c === "\\") {
      const e = body[k + 1] ?? "";
      if (e in SIMPLE) {
        out += SIMPLE[e];
        k += 2;
        continue;
      }
      if (e !== "u") err(`invalid character ${q(e)} in string escape code`);
      const hex = (at: number) =>
        /^[0-9a-fA-F]{4}$/.test(body.slice(at, at + 4)) ? Number.parseInt(body.slice(at, at + 4), 16) : -1;
      let r = hex(k + 2);
      if (r < 0) err("invalid character in \\u hexadecimal character escape");
      k += 6;
      if (r >= 0xd800 && r < 0xdc00 && body.startsWith("\\u", k)) {
        const lo = hex(k + 2);
        if (lo >= 0xdc00 && lo < 0xe000) {
          r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
          k += 6;
        }
      }
      out += encodeRune(r);
      continue;
    }
    const n = c.charCodeAt(0);
    if (n < 0x20) err(`invalid character ${q(c)} in string literal`);
    if (n < 0x80) {
      out += c;
      k++;
      continue;
    }
    // keep valid UTF-8 sequences, replace invalid bytes
    const seq = Buffer.from(body.slice(k, k + 4), "latin1").toString("utf8");
    const cp = seq.codePointAt(0) ?? 0xfffd;
    const size = cp === 0xfffd ? 1 : Buffer.byteLength(String.fromCodePoint(cp), "utf8");
    out += cp === 0xfffd ? encodeRune(0xfffd) : body.slice(k, k + size);
    k += size;
  }
  return out;
}

/**
 * Go's json.Indent: the same tokens (numbers and strings kept as written), one element per line, each new
 * line starting with `prefix` and one `indent` per level; empty arrays and objects stay `[]` and `{}`.
 */
export function indentJSON(s: string, prefix: string, indent: string): string {
  try {
    decodeJSON(s);
  } catch {
    fail(`json.indent: ${goSyntaxError(s)}`);
  }
  let out = "";
  let depth = 0;
  let needIndent = false;
  const newline = () => `\n${prefix}${indent.repeat(depth)}`;
  for (let i = 0; i < s.length; i++) {
    const c = s.charAt(i);
    if (SPACE.has(c)) continue;
    if (needIndent && c !== "]" && c !== "}") {
      needIndent = false;
      depth++;
      out += newline();
    }
    if (c === '"') {
      let j = i + 1;
      while (s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
      out += s.slice(i, j + 1);
      i = j;
      continue;
    }
    switch (c) {
      case "[":
      case "{":
        needIndent = true;
        out += c;
        break;
      case ",":
        out += `,${newline()}`;
        break;
      case ":":
        out += ": ";
        break;
      case "]":
      case "}":
        if (needIndent) needIndent = false;
        else {
          depth--;
          out += newline();
        }
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

/** The message of Go's json scanner for the first syntax error (the common cases). */
function goSyntaxError(s: string): string {
  const t = s.trim();
  if (t === "") return "unexpected end of JSON input";
  try {
    decodeJSON(s);
  } catch (e) {
    const m = /at offset (\d+), (.*)$/.exec((e as Error).message);
    const at = Number(m?.[1] ?? 0);
    if (at >= s.length || m?.[2] === "unexpected end of file") return "unexpected end of JSON input";
    const c = s.charAt(at);
    if (m?.[2]?.includes("after value")) return `invalid character ${q(c)} after top-level value`;
    return `invalid character ${q(c)} looking for beginning of value`;
  }
  return "invalid JSON";
}
