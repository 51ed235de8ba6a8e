import type { Pos } from "./ast.js";
import { StarlarkSyntaxError } from "./errors.js";
import { unquote } from "./quote.js";
import { toBytes } from "./utf8.js";

/** Token kinds: punctuation and keywords are their own text; the rest are upper-case names. */
export type TokenKind = string;

export interface Token {
  kind: TokenKind;
  pos: Pos;
  raw: string;
  /** Decoded value of INT, FLOAT, STRING and BYTES tokens. */
  value?: number | bigint | string;
}

const KEYWORDS = new Set([
  "and",
  "break",
  "continue",
  "def",
  "elif",
  "else",
  "for",
  "if",
  "in",
  "lambda",
  "load",
  "not",
  "or",
  "pass",
  "return",
  "while",
]);
const RESERVED = new Set([
  "as",
  "class",
  "del",
  "except",
  "finally",
  "from",
  "global",
  "import",
  "is",
  "nonlocal",
  "raise",
  "try",
  "with",
  "yield",
]);

const NAMES: Record<string, string> = {
  ILLEGAL: "illegal token",
  EOF: "end of file",
  NEWLINE: "newline",
  INDENT: "indent",
  OUTDENT: "outdent",
  IDENT: "identifier",
  INT: "int literal",
  FLOAT: "float literal",
  STRING: "string literal",
  BYTES: "bytes literal",
};

/** A token as Go's `%#v` prints it in parser errors: punctuation quoted, names spelled out. */
export function tokenString(kind: TokenKind): string {
  const name = NAMES[kind];
  if (name) return name;
  if (KEYWORDS.has(kind) || kind === "not in") return kind;
  return `'${kind}'`;
}

const isDigit = (c: string) => c >= "0" && c <= "9";
const isIdentStart = (c: string) =>
  (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || (c > "\x7f" && /\p{L}/u.test(c));
const isIdent = (c: string) => isDigit(c) || isIdentStart(c);

/** Starlark's scanner: produces tokens one at a time, with Python-style indentation tokens. */
export class Lexer {
  private i = 0;
  private line = 1;
  private col = 1;
  private depth = 0;
  private readonly indents: number[] = [0];
  private dents = 0;
  private lineStart = true;

  constructor(
    readonly file: string,
    private readonly src: string,
  ) {}

  /** The scanner's current position (Go's `p.in.pos`, used for most parser errors). */
  get pos(): Pos {
    return { line: this.line, col: this.col };
  }

  error(pos: Pos, msg: string): never {
    throw new StarlarkSyntaxError(this.file, pos, msg);
  }

  private peek(off = 0): string {
    const c = this.src[this.i + off];
    if (c === undefined) return "";
    return c === "\r" ? "\n" : c;
  }

  private read(): string {
    let c = this.src[this.i++] ?? "";
    if (c === "\r") {
      if (this.src[this.i] === "\n") this.i++;
      c = "\n";
    }
    if (c === "\n") {
      this.line++;
      this.col = 1;
    } else if (!(c >= "\udc00" && c <= "\udfff")) {
      this.col++;
    }
    return c;
  }

  next(): Token {
    for (;;) {
      let blank = false;
      const savedLineStart = this.lineStart;
      if (this.lineStart) {
        this.lineStart = false;
        let col = 0;
        let c = this.peek();
        for (;;) {
          if (c === " ") col++;
          else if (c === "\t") col += 8 - ((this.col - 1) % 8);
          else break;
          this.read();
          c = this.peek();
        }
        if (c === "#" || c === "\n" || (c === "" && col > 0)) blank = true;
        if (!blank && this.depth === 0) this.indent(col);
      }
      if (this.dents !== 0) {
        const pos = this.pos;
        if (this.dents < 0) {
          this.dents++;
          return { kind: "OUTDENT", pos, raw: "" };
        }
        this.dents--;
        return { kind: "INDENT", pos, raw: "" };
      }
      let c = this.peek();
      while (c === " " || c === "\t") {
        this.read();
        c = this.peek();
      }
      if (c === "#") {
        while (c !== "" && c !== "\n") {
          this.read();
          c = this.peek();
        }
      }
      if (c === "\n") {
        this.lineStart = true;
        if (this.depth > 0 || blank) {
          this.read();
          continue;
        }
        const pos = this.pos;
        this.read();
        return { kind: "NEWLINE", pos, raw: "\n" };
      }
      if (c === "") {
        if (this.indents.length > 1) {
          if (savedLineStart) {
            this.dents = 1 - this.indents.length;
            this.indents.length = 1;
            continue;
          }
          this.lineStart = true;
          return { kind: "NEWLINE", pos: this.pos, raw: "\n" };
        }
        return { kind: "EOF", pos: this.pos, raw: "" };
      }
      if (c === "\\") {
        this.read();
        if (this.peek() !== "\n") this.error(this.pos, "stray backslash in program");
        this.read();
        continue;
      }
      return this.token(c);
    }
  }

  private indent(col: number): void {
    const cur = this.indents.at(-1) ?? 0;
    if (col > cur) {
      this.dents++;
      this.indents.push(col);
    } else if (col < cur) {
      while (this.indents.length > 0 && col < (this.indents.at(-1) ?? 0)) {
        this.dents--;
        this.indents.pop();
      }
      if (col !== this.indents[this.indents.length - 1]) {
        this.error(this.pos, "unindent does not match any outer indentation level");
      }
    }
  }

  private token(c: string): Token {
    const pos = this.pos;
    const start = this.i;
    if (c === ",") {
      this.read();
      return { kind: ",", pos, raw: "," };
    }
    if (c === '"' || c === "'") return this.string(pos, start);
    if (isIdentStart(c)) {
      const c1 = this.peek(1);
      const c2 = this.peek(2);
      if (
        ((c === "r" || c === "b") && (c1 === '"' || c1 === "'")) ||
        ((c === "r" || c === "b") && (c1 === "b" || c1 === "r") && c1 !== c && (c2 === '"' || c2 === "'"))
      ) {
        this.read();
        if (c1 === "b" || c1 === "r") this.read();
        return this.string(pos, start);
      }
      while (isIdent(c)) {
        this.read();
        c = this.peek();
      }
      const raw = this.src.slice(start, this.i);
      if (KEYWORDS.has(raw)) return { kind: raw, pos, raw };
      if (RESERVED.has(raw)) return { kind: "ILLEGAL", pos, raw };
      return { kind: "IDENT", pos, raw: toBytes(raw) };
    }
    switch (c) {
      case "[":
      case "(":
      case "{":
        this.depth++;
        this.read();
        return { kind: c, pos, raw: c };
      case "]":
      case ")":
      case "}":
        if (this.depth === 0) this.error(this.pos, `unexpected '${c}'`);
        this.depth--;
        this.read();
        return { kind: c, pos, raw: c };
    }
    if (isDigit(c) || c === ".") return this.number(pos, start);
    return this.punct(c, pos);
  }

  private punct(c: string, pos: Pos): Token {
    const three = this.src.slice(this.i, this.i + 3);
    const two = this.src.slice(this.i, this.i + 2);
    let kind: string;
    if (three === "//=" || three === "<<=" || three === ">>=") kind = three;
    else if (
      [
        "==",
        "!=",
        "<=",
        ">=",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "|=",
        "^=",
        "//",
        "<<",
        ">>",
        "**",
      ].includes(two)
    )
      kind = two;
    else if ("=<>+-*/%&|^~:;".includes(c)) kind = c;
    else if (c === "!") this.error(pos, "unexpected input character '!'");
    else this.error(this.pos, `unexpected input character ${JSON.stringify(c)}`);
    for (let k = 0; k < kind.length; k++) this.read();
    return { kind, pos, raw: kind };
  }

  private string(pos: Pos, start: number): Token {
    const quote = this.peek();
    const triple = this.peek(1) === quote && this.peek(2) === quote;
    this.read();
    if (!triple) {
      for (;;) {
        if (this.i >= this.src.length) this.error(pos, "unexpected EOF in string");
        const c = this.read();
        if (c === quote) break;
        if (c === "\n") this.error(pos, "unexpected newline in string");
        if (c === "\\") {
          if (this.i >= this.src.length) this.error(pos, "unexpected EOF in string");
          this.read();
        }
      }
    } else {
      this.read();
      this.read();
      let n = 0;
      for (;;) {
        if (this.i >= this.src.length) this.error(pos, "unexpected EOF in string");
        const c = this.read();
        if (c === quote) {
          n++;
          if (n === 3) break;
        } else n = 0;
        if (c === "\\") {
          if (this.i >= this.src.length) this.error(pos, "unexpected EOF in string");
          this.read();
        }
      }
    }
    const raw = this.src.slice(start, this.i).replace(/\r\n?/g, "\n");
    const r = unquote(raw);
    if (typeof r === "object" && "error" in r) this.error(pos, r.error);
    return { kind: r.bytes ? "BYTES" : "STRING", pos, raw, value: r.value };
  }

  private number(pos: Pos, start: number): Token {
    let c = this.peek();
    let fraction = false;
    let exponent = false;
    if (c === ".") {
      this.read();
      c = this.peek();
      if (!isDigit(c)) return { kind: ".", pos, raw: "." };
      fraction = true;
    } else if (c === "0") {
      this.read();
      c = this.peek();
      const lower = c.toLowerCase();
      if (c === ".") fraction = true;
      else if (lower === "x" || lower === "o" || lower === "b") {
        this.read();
        c = this.peek();
        const ok = lower === "x" ? /[0-9a-fA-F]/ : lower === "o" ? /[0-7]/ : /[01]/;
        if (!ok.test(c))
          this.error(
            lower === "x" ? pos : this.pos,
            `invalid ${lower === "x" ? "hex" : lower === "o" ? "octal" : "binary"} literal`,
          );
        while (c !== "" && ok.test(c)) {
          this.read();
          c = this.peek();
        }
      } else {
        while (isDigit(c)) {
          this.read();
          c = this.peek();
        }
        if (c === ".") fraction = true;
        else if (c === "e" || c === "E") exponent = true;
      }
    } else {
      while (isDigit(c)) {
        this.read();
        c = this.peek();
      }
      if (c === ".") fraction = true;
      else if (c === "e" || c === "E") exponent = true;
    }
    if (fraction) {
      this.read();
      c = this.peek();
      while (isDigit(c)) {
        this.read();
        c = this.peek();
      }
      if (c === "e" || c === "E") exponent = true;
    }
    if (exponent) {
      this.read();
      c = this.peek();
      if (c === "+" || c === "-") {
        this.read();
        c = this.peek();
        if (!isDigit(c)) this.error(this.pos, "invalid float literal");
      }
      while (isDigit(c)) {
        this.read();
        c = this.peek();
      }
    }
    const raw = this.src.slice(start, this.i);
    if (fraction || exponent) return { kind: "FLOAT", pos, raw, value: Number(raw) };
    let big: bigint;
    const lower = raw.toLowerCase();
    if (/^0[0-9]+$/.test(raw) && !/^0+$/.test(raw)) big = BigInt(`0o${raw.slice(1)}`);
    else if (/^0[xob]/.test(lower) || /^[0-9]+$/.test(raw)) big = BigInt(lower);
    else this.error(pos, "invalid int literal");
    const value =
      big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    return { kind: "INT", pos, raw, value };
  }
}
