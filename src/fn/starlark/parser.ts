import type { Arg, Clause, DictEntry, Expr, File, FunctionDef, Ident, Param, Pos, Stmt } from "./ast.js";
import { Lexer, type Token, tokenString } from "./lexer.js";

const PREC_LEVELS: string[][] = [
  ["or"],
  ["and"],
  ["not"],
  ["==", "!=", "<", ">", "<=", ">=", "in", "not in"],
  ["|"],
  ["^"],
  ["&"],
  ["<<", ">>"],
  ["-", "+"],
  ["*", "%", "/", "//"],
];
/** Each binary operator's level in PREC_LEVELS (a lookup table, made once). */
const PRECEDENCE = new Map<string, number>(PREC_LEVELS.flatMap((ops, level) => ops.map((op) => [op, level])));
const ASSIGN_OPS = new Set(["=", "+=", "-=", "*=", "/=", "//=", "%=", "&=", "|=", "^=", "<<=", ">>="]);
const TERMINATORS = new Set(["EOF", "NEWLINE", "=", "}", "]", ")", ";"]);

/** Parses a Starlark file (Go starlark's LL(1) recursive-descent grammar, with its error messages). */
export function parseFile(file: string, src: string): File {
  return new Parser(file, src).file();
}

function newFunction(name: string, pos: Pos, params: Param[], body: Stmt[]): FunctionDef {
  return {
    name,
    pos,
    params,
    body,
    locals: [],
    freevars: [],
    numParams: 0,
    numKwonly: 0,
    hasVarargs: false,
    hasKwargs: false,
  };
}

class Parser {
  private readonly lex: Lexer;
  private tok: Token;

  constructor(file: string, src: string) {
    this.lex = new Lexer(file, src);
    this.tok = this.lex.next();
  }

  private k(): string {
    return this.tok.kind;
  }

  /** Advances and returns the position of the token just consumed. */
  private next(): Pos {
    const pos = this.tok.pos;
    this.tok = this.lex.next();
    return pos;
  }

  private err(msg: string, pos: Pos = this.lex.pos): never {
    this.lex.error(pos, msg);
  }

  private consume(kind: string): Pos {
    if (this.k() !== kind) this.err(`got ${tokenString(this.k())}, want ${tokenString(kind)}`);
    return this.next();
  }

  file(): File {
    const stmts: Stmt[] = [];
    while (this.k() !== "EOF") {
      if (this.k() === "NEWLINE") {
        this.next();
        continue;
      }
      this.stmt(stmts);
    }
    return { name: this.lex.file, stmts, globals: [], locals: [] };
  }

  private stmt(out: Stmt[]): void {
    switch (this.k()) {
      case "def": {
        const pos = this.next();
        const name = this.ident();
        this.consume("(");
        const params = this.params();
        this.consume(")");
        this.consume(":");
        const body = this.suite();
        out.push({ kind: "def", pos, name, fn: newFunction(name.name, pos, params, body) });
        return;
      }
      case "if":
        out.push(this.ifStmt());
        return;
      case "for": {
        const pos = this.next();
        const vars = this.loopVars();
        this.consume("in");
        const x = this.expr(false);
        this.consume(":");
        out.push({ kind: "for", pos, vars, x, body: this.suite() });
        return;
      }
      case "while": {
        const pos = this.next();
        const cond = this.test();
        this.consume(":");
        out.push({ kind: "while", pos, cond, body: this.suite() });
        return;
      }
    }
    this.simpleStmt(out);
  }

  private ifStmt(): Stmt {
    const pos = this.next();
    const cond = this.test();
    this.consume(":");
    const then = this.suite();
    const root: Stmt & { kind: "if" } = { kind: "if", pos, cond, body: then, orelse: [] };
    let tail = root;
    while (this.k() === "elif") {
      const epos = this.next();
      const c = this.test();
      this.consume(":");
      const body = this.suite();
      const elif: Stmt & { kind: "if" } = { kind: "if", pos: epos, cond: c, body, orelse: [] };
      tail.orelse = [elif];
      tail = elif;
    }
    if (this.k() === "else") {
      this.next();
      this.consume(":");
      tail.orelse = this.suite();
    }
    return root;
  }

  private loopVars(): Expr {
    const v = this.primaryWithSuffix();
    if (this.k() !== ",") return v;
    const elems = [v];
    while (this.k() === ",") {
      this.next();
      if (TERMINATORS.has(this.k())) break;
      elems.push(this.primaryWithSuffix());
    }
    return { kind: "tuple", pos: v.pos, elems };
  }

  private simpleStmt(out: Stmt[]): void {
    for (;;) {
      out.push(this.smallStmt());
      if (this.k() !== ";") break;
      this.next();
      if (this.k() === "NEWLINE" || this.k() === "EOF") break;
    }
    if (this.k() !== "EOF") this.consume("NEWLINE");
  }

  private smallStmt(): Stmt {
    switch (this.k()) {
      case "return": {
        const pos = this.next();
        if (this.k() !== "EOF" && this.k() !== "NEWLINE" && this.k() !== ";") {
          return { kind: "return", pos, x: this.expr(false) };
        }
        return { kind: "return", pos };
      }
      case "break":
      case "continue":
      case "pass": {
        const token = this.k() as "break" | "continue" | "pass";
        return { kind: "branch", pos: this.next(), token };
      }
      case "load":
        return this.loadStmt();
    }
    const lhs = this.expr(false);
    if (ASSIGN_OPS.has(this.k())) {
      const op = this.k();
      const pos = this.next();
      const rhs = this.expr(false);
      return { kind: "assign", pos, op, lhs, rhs };
    }
    return { kind: "expr", pos: lhs.pos, x: lhs };
  }

  private loadStmt(): Stmt {
    const pos = this.next();
    const lparen = this.consume("(");
    if (this.k() !== "STRING") this.err("first operand of load statement must be a string literal");
    const module = this.tok.value as string;
    this.next();
    const to: Ident[] = [];
    const from: string[] = [];
    while (this.k() !== ")" && this.k() !== "EOF") {
      this.consume(",");
      if (this.k() === ")") break;
      if (this.k() === "STRING") {
        const lit = this.tok;
        this.next();
        const name = lit.value as string;
        to.push({ kind: "ident", pos: { line: lit.pos.line, col: lit.pos.col + 1 }, name });
        from.push(name);
      } else if (this.k() === "IDENT") {
        const id = this.ident();
        to.push(id);
        if (this.k() !== "=")
          this.err(
            `load operand must be "${id.name}" or ${id.name}="originalname" (want '=' after ${id.name})`,
          );
        this.consume("=");
        if (this.k() !== "STRING")
          this.err(`original name of loaded symbol must be quoted: ${id.name}="originalname"`);
        from.push(this.tok.value as string);
        this.next();
      } else {
        this.err(`load operand must be "name" or localname="name" (got ${tokenString(this.k())})`);
      }
    }
    this.consume(")");
    if (to.length === 0) this.err("load statement must import at least 1 symbol", lparen);
    return { kind: "load", pos, module, to, from };
  }

  private suite(): Stmt[] {
    if (this.k() === "NEWLINE") {
      this.next();
      this.consume("INDENT");
      const stmts: Stmt[] = [];
      while (this.k() !== "OUTDENT" && this.k() !== "EOF") this.stmt(stmts);
      this.consume("OUTDENT");
      return stmts;
    }
    const stmts: Stmt[] = [];
    this.simpleStmt(stmts);
    return stmts;
  }

  private ident(): Ident {
    if (this.k() !== "IDENT") this.err("not an identifier");
    const id: Ident = { kind: "ident", pos: this.tok.pos, name: this.tok.raw };
    this.next();
    return id;
  }

  private params(): Param[] {
    const params: Param[] = [];
    let stars = false;
    while (this.k() !== ")" && this.k() !== ":" && this.k() !== "EOF") {
      if (params.length > 0) this.consume(",");
      if (this.k() === ")") {
        if (stars) this.err(`got ${tokenString(this.k())}, want parameter`);
        break;
      }
      if (this.k() === "*" || this.k() === "**") {
        stars = true;
        const op = this.k();
        const pos = this.next();
        if (op === "*" && (this.k() === "," || this.k() === ")" || this.k() === ":")) {
          params.push({ kind: "star", pos });
          continue;
        }
        const name = this.ident();
        params.push(op === "*" ? { kind: "star", name, pos } : { kind: "starstar", name });
        continue;
      }
      const name = this.ident();
      if (this.k() === "=") {
        this.next();
        params.push({ kind: "default", name, dflt: this.test() });
        continue;
      }
      params.push({ kind: "plain", name });
    }
    return params;
  }

  private expr(inParens: boolean): Expr {
    const x = this.test();
    if (this.k() !== ",") return x;
    return { kind: "tuple", pos: x.pos, elems: this.exprs([x], inParens) };
  }

  private exprs(elems: Expr[], allowTrailingComma: boolean): Expr[] {
    while (this.k() === ",") {
      const pos = this.next();
      if (TERMINATORS.has(this.k())) {
        if (!allowTrailingComma) this.err("unparenthesized tuple with trailing comma", pos);
        break;
      }
      elems.push(this.test());
    }
    return elems;
  }

  private test(): Expr {
    if (this.k() === "lambda") return this.lambda(true);
    const x = this.testPrec(0);
    if (this.k() === "if") {
      const ifpos = this.next();
      const cond = this.testPrec(0);
      if (this.k() !== "else") this.err("conditional expression without else clause", ifpos);
      this.next();
      const f = this.test();
      return { kind: "cond", pos: x.pos, cond, t: x, f };
    }
    return x;
  }

  private testNoCond(): Expr {
    if (this.k() === "lambda") return this.lambda(false);
    return this.testPrec(0);
  }

  private lambda(allowCond: boolean): Expr {
    const pos = this.next();
    const params = this.k() !== ":" ? this.params() : [];
    this.consume(":");
    const body = allowCond ? this.test() : this.testNoCond();
    const ret: Stmt = { kind: "return", pos: body.pos, x: body };
    return { kind: "lambda", pos, fn: newFunction("lambda", pos, params, [ret]) };
  }

  private testPrec(prec: number): Expr {
    if (prec >= PREC_LEVELS.length) return this.primaryWithSuffix();
    if (this.k() === "not" && prec === 2) {
      const pos = this.next();
      const x = this.testPrec(prec);
      return { kind: "unary", pos, op: "not", x };
    }
    return this.binop(prec);
  }

  private binop(prec: number): Expr {
    let x = this.testPrec(prec + 1);
    for (let first = true; ; first = false) {
      if (this.k() === "not") {
        // In this context NOT must be followed by IN: the pair becomes one "not in" lookahead token.
        this.next();
        if (this.k() !== "in") this.err(`got ${tokenString(this.k())}, want in`);
        this.tok = { ...this.tok, kind: "not in" };
      }
      const op = this.k();
      const opprec = PRECEDENCE.get(op) ?? -1;
      if (opprec < prec) return x;
      if (!first && opprec === 3 && x.kind === "binary") {
        this.err(`${x.op} does not associate with ${op} (use parens)`);
      }
      const pos = this.next();
      const y = this.testPrec(opprec + 1);
      x = { kind: "binary", pos, op, x, y };
    }
  }

  private primaryWithSuffix(): Expr {
    let x = this.primary();
    for (;;) {
      switch (this.k()) {
        case ".": {
          const pos = this.next();
          const id = this.ident();
          x = { kind: "dot", pos, x, name: id.name };
          break;
        }
        case "[":
          x = this.sliceSuffix(x);
          break;
        case "(":
          x = this.callSuffix(x);
          break;
        default:
          return x;
      }
    }
  }

  private sliceSuffix(x: Expr): Expr {
    const pos = this.next();
    let lo: Expr | undefined;
    let hi: Expr | undefined;
    let step: Expr | undefined;
    if (this.k() !== ":") {
      const y = this.expr(false);
      if (this.k() === "]") {
        this.next();
        return { kind: "index", pos, x, y };
      }
      lo = y;
    }
    if (this.k() === ":") {
      this.next();
      if (this.k() !== ":" && this.k() !== "]") hi = this.test();
    }
    if (this.k() === ":") {
      this.next();
      if (this.k() !== "]") step = this.test();
    }
    this.consume("]");
    return { kind: "slice", pos, x, lo, hi, step };
  }

  private callSuffix(fn: Expr): Expr {
    const pos = this.consume("(");
    let args: Arg[] = [];
    if (this.k() === ")") this.next();
    else {
      args = this.args();
      this.consume(")");
    }
    return { kind: "call", pos, fn, args };
  }

  private args(): Arg[] {
    const args: Arg[] = [];
    let stars = false;
    while (this.k() !== ")" && this.k() !== "EOF") {
      if (args.length > 0) this.consume(",");
      if (this.k() === ")") {
        if (stars) this.err(`got ${tokenString(this.k())}, want argument`);
        break;
      }
      if (this.k() === "*" || this.k() === "**") {
        stars = true;
        const op = this.k();
        this.next();
        const x = this.test();
        args.push(op === "*" ? { kind: "star", x } : { kind: "starstar", x });
        continue;
      }
      const x = this.test();
      if (this.k() === "=") {
        if (x.kind !== "ident") this.err("keyword argument must have form name=expr");
        this.next();
        args.push({ kind: "named", name: x, x: this.test() });
        continue;
      }
      args.push({ kind: "pos", x });
    }
    return args;
  }

  private primary(): Expr {
    const t = this.tok;
    switch (t.kind) {
      case "IDENT":
        return this.ident();
      case "INT":
      case "STRING":
        this.next();
        return { kind: "literal", pos: t.pos, value: t.value as number | bigint | string };
      case "FLOAT":
        this.next();
        return { kind: "literal", pos: t.pos, value: { float: t.value as number } };
      case "BYTES":
        this.next();
        return { kind: "literal", pos: t.pos, value: { bytes: t.value as string } };
      case "[":
        return this.list();
      case "{":
        return this.dict();
      case "(": {
        const pos = this.next();
        if (this.k() === ")") {
          this.next();
          return { kind: "tuple", pos, elems: [] };
        }
        const x = this.expr(true);
        this.consume(")");
        return { kind: "paren", pos, x };
      }
      case "-":
      case "+":
      case "~": {
        const pos = this.next();
        const x = this.primaryWithSuffix();
        return { kind: "unary", pos, op: t.kind, x };
      }
    }
    this.err(`got ${tokenString(t.kind)}, want primary expression`);
  }

  private list(): Expr {
    const pos = this.next();
    if (this.k() === "]") {
      this.next();
      return { kind: "list", pos, elems: [] };
    }
    const x = this.test();
    if (this.k() === "for") return this.comprehension(pos, x, "]");
    const elems = [x];
    if (this.k() === ",") this.exprs(elems, true);
    this.consume("]");
    return { kind: "list", pos, elems };
  }

  private dict(): Expr {
    const pos = this.next();
    if (this.k() === "}") {
      this.next();
      return { kind: "dict", pos, entries: [] };
    }
    const first = this.dictEntry();
    if (this.k() === "for") return this.comprehension(pos, first, "}");
    const entries = [first];
    while (this.k() === ",") {
      this.next();
      if (this.k() === "}") break;
      entries.push(this.dictEntry());
    }
    this.consume("}");
    return { kind: "dict", pos, entries };
  }

  private dictEntry(): DictEntry {
    const key = this.test();
    const colon = this.consume(":");
    return { key, value: this.test(), colon };
  }

  private comprehension(pos: Pos, body: Expr | DictEntry, end: string): Expr {
    const clauses: Clause[] = [];
    while (this.k() !== end) {
      if (this.k() === "for") {
        const cpos = this.next();
        const vars = this.loopVars();
        this.consume("in");
        clauses.push({ kind: "for", pos: cpos, vars, x: this.testPrec(0) });
      } else if (this.k() === "if") {
        const cpos = this.next();
        clauses.push({ kind: "if", pos: cpos, cond: this.testNoCond() });
      } else {
        this.err(`got ${tokenString(this.k())}, want '${end}', for, or if`);
      }
    }
    this.next();
    return { kind: "comp", pos, curly: end === "}", body, clauses };
  }
}
