/** Syntax tree of a Starlark file, as produced by the parser. Positions are 1-based line and column. */

export interface Pos {
  line: number;
  col: number;
}

export interface Ident {
  kind: "ident";
  pos: Pos;
  name: string;
  /** Filled in by the resolver. */
  binding?: Binding;
}

type Scope = "local" | "cell" | "free" | "global" | "predeclared" | "universal" | "undefined";

/** Where a name lives at run time (set by the resolver). */
export interface Binding {
  scope: Scope;
  /** Slot: index in the frame's locals, the function's free cells, or the module's globals. */
  index: number;
  name: string;
  first: Ident;
}

export type Expr =
  | Ident
  | { kind: "literal"; pos: Pos; value: number | bigint | string | { float: number } | { bytes: string } }
  | { kind: "list"; pos: Pos; elems: Expr[] }
  | { kind: "tuple"; pos: Pos; elems: Expr[] }
  | { kind: "dict"; pos: Pos; entries: DictEntry[] }
  | { kind: "paren"; pos: Pos; x: Expr }
  | { kind: "unary"; pos: Pos; op: string; x: Expr }
  | { kind: "binary"; pos: Pos; op: string; x: Expr; y: Expr }
  | { kind: "cond"; pos: Pos; cond: Expr; t: Expr; f: Expr }
  | { kind: "dot"; pos: Pos; x: Expr; name: string }
  | { kind: "index"; pos: Pos; x: Expr; y: Expr }
  | { kind: "slice"; pos: Pos; x: Expr; lo?: Expr; hi?: Expr; step?: Expr }
  | { kind: "call"; pos: Pos; fn: Expr; args: Arg[] }
  | { kind: "lambda"; pos: Pos; fn: FunctionDef }
  | { kind: "comp"; pos: Pos; curly: boolean; body: Expr | DictEntry; clauses: Clause[] };

/** `key: value` in a dict literal or comprehension; `colon` is where Go reports its errors. */
export interface DictEntry {
  key: Expr;
  value: Expr;
  colon: Pos;
}

export type Arg =
  | { kind: "pos"; x: Expr }
  | { kind: "named"; name: Ident; x: Expr }
  | { kind: "star"; x: Expr }
  | { kind: "starstar"; x: Expr };

export type Clause = { kind: "for"; pos: Pos; vars: Expr; x: Expr } | { kind: "if"; pos: Pos; cond: Expr };

export type Param =
  | { kind: "plain"; name: Ident }
  | { kind: "default"; name: Ident; dflt: Expr }
  | { kind: "star"; name?: Ident; pos: Pos }
  | { kind: "starstar"; name: Ident };

/** A def statement or lambda, with its resolved frame layout. */
export interface FunctionDef {
  name: string;
  pos: Pos;
  params: Param[];
  body: Stmt[];
  /** Resolver output. */
  locals: Binding[];
  freevars: Binding[];
  numParams: number;
  numKwonly: number;
  hasVarargs: boolean;
  hasKwargs: boolean;
}

export type Stmt =
  | { kind: "expr"; pos: Pos; x: Expr }
  | { kind: "assign"; pos: Pos; op: string; lhs: Expr; rhs: Expr }
  | { kind: "def"; pos: Pos; name: Ident; fn: FunctionDef }
  | { kind: "if"; pos: Pos; cond: Expr; body: Stmt[]; orelse: Stmt[] }
  | { kind: "for"; pos: Pos; vars: Expr; x: Expr; body: Stmt[] }
  | { kind: "while"; pos: Pos; cond: Expr; body: Stmt[] }
  | { kind: "return"; pos: Pos; x?: Expr }
  | { kind: "branch"; pos: Pos; token: "break" | "continue" | "pass" }
  | { kind: "load"; pos: Pos; module: string; to: Ident[]; from: string[] };

export interface File {
  name: string;
  stmts: Stmt[];
  /** Resolver output: module globals, and locals of the top-level code (comprehension variables). */
  globals: Binding[];
  locals: Binding[];
}
