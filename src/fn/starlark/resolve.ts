import type { Binding, Clause, DictEntry, Expr, File, FunctionDef, Ident, Pos, Stmt } from "./ast.js";
import { StarlarkSyntaxError } from "./errors.js";

/** Dialect switches of Go starlark's resolver (all off by default, as in Go). */
export interface DialectOptions {
  /** Allow the `set` builtin. */
  set?: boolean;
  /** Allow `while` loops and recursive calls. */
  recursion?: boolean;
  /** Allow rebinding top-level names, and `if`/`for`/`while` at top level. */
  globalReassign?: boolean;
}

interface Fn {
  def: FunctionDef | null;
  locals: Binding[];
  freevars: Binding[];
  /** The block enclosing the function's definition (null for the module's top level). */
  parent: Block | null;
}

interface Block {
  fn: Fn;
  parent: Block | null;
  names: Map<string, Binding>;
}

interface ResolveError {
  pos: Pos;
  msg: string;
  /** Found when Go resolves a function's free names, after the whole module has been walked. */
  late: boolean;
}

/**
 * Resolves every identifier of a file to a local, cell, free, global, predeclared or universal binding, and
 * reports static errors ("undefined: x", top-level for loops, ...) as Go's resolver does.
 */
export function resolveFile(
  file: File,
  isPredeclared: (name: string) => boolean,
  isUniversal: (name: string) => boolean,
  opts: DialectOptions,
): void {
  new Resolver(file, isPredeclared, isUniversal, opts).run();
}

/** Links each free binding to the binding in the enclosing function it captures. */
export const OUTER = new WeakMap<Binding, Binding>();

class Resolver {
  private readonly errors: ResolveError[] = [];
  private readonly globals = new Map<string, Binding>();
  private readonly pending: { fn: Fn; def: FunctionDef }[] = [];
  private loops = 0;

  constructor(
    private readonly file: File,
    private readonly isPredeclared: (name: string) => boolean,
    private readonly isUniversal: (name: string) => boolean,
    private readonly opts: DialectOptions,
  ) {}

  run(): void {
    const top: Fn = { def: null, locals: [], freevars: [], parent: null };
    const block: Block = { fn: top, parent: null, names: new Map() };
    this.stmts(this.file.stmts, block, true);
    // Function bodies are resolved after the whole module, so they may use globals defined later.
    for (let i = 0; i < this.pending.length; i++) this.functionBody(this.pending[i]!);
    this.file.globals = [...this.globals.values()];
    this.file.locals = top.locals;
    if (this.errors.length > 0) {
      // Go reports its first error: statements in source order, then undefined names within functions.
      const early = this.errors.filter((e) => !e.late);
      const first = (early.length > 0 ? early : this.errors).reduce((a, b) =>
        b.pos.line < a.pos.line || (b.pos.line === a.pos.line && b.pos.col < a.pos.col) ? b : a,
      );
      throw new StarlarkSyntaxError(this.file.name, first.pos, first.msg);
    }
  }

  private error(pos: Pos, msg: string, late = false): void {
    this.errors.push({ pos, msg, late });
  }

  private stmts(stmts: Stmt[], b: Block, toplevel: boolean): void {
    for (const s of stmts) this.stmt(s, b, toplevel);
  }

  private stmt(s: Stmt, b: Block, toplevel: boolean): void {
    const atModule = b.fn.def === null;
    switch (s.kind) {
      case "expr":
        this.expr(s.x, b);
        return;
      case "assign":
        this.expr(s.rhs, b);
        if (s.op !== "=") {
          let lhs = s.lhs;
          while (lhs.kind === "paren") lhs = lhs.x;
          if (lhs.kind === "tuple" || lhs.kind === "list") {
            const what = lhs.kind === "tuple" ? "tuple" : "list";
            this.error(lhs.pos, `can't use ${what} expression in augmented assignment`);
            return;
          }
          if (lhs.kind === "ident") this.bind(lhs, b);
          else if (lhs.kind !== "index" && lhs.kind !== "dot")
            this.error(lhs.pos, `can't assign to ${describe(lhs)}`);
          this.expr(lhs, b);
          return;
        }
        this.assign(s.lhs, b, false);
        return;
      case "def":
        this.bind(s.name, b);
        this.func(s.fn, b);
        return;
      case "if":
        if (atModule && !this.opts.globalReassign) this.error(s.pos, "if statement not within a function");
        this.expr(s.cond, b);
        this.stmts(s.body, b, false);
        this.stmts(s.orelse, b, false);
        return;
      case "for":
        if (atModule && !this.opts.globalReassign) this.error(s.pos, "for loop not within a function");
        this.expr(s.x, b);
        this.assign(s.vars, b, true);
        this.loops++;
        this.stmts(s.body, b, false);
        this.loops--;
        return;
      case "while":
        if (!this.opts.recursion) this.error(s.pos, "this Starlark dialect does not support while loops");
        if (atModule && !this.opts.globalReassign) this.error(s.pos, "while loop not within a function");
        this.expr(s.cond, b);
        this.loops++;
        this.stmts(s.body, b, false);
        this.loops--;
        return;
      case "return":
        if (atModule) this.error(s.pos, "return statement not within a function");
        if (s.x) this.expr(s.x, b);
        return;
      case "branch":
        if (s.token !== "pass" && this.loops === 0) this.error(s.pos, `${s.token} not in a loop`);
        return;
      case "load":
        if (!atModule) {
          this.error(s.pos, "load statement within a function");
          return;
        }
        if (this.loops > 0) this.error(s.pos, "load statement within a loop");
        else if (!toplevel) this.error(s.pos, "load statement within a conditional");
        for (const id of s.to) this.bind(id, b);
        return;
    }
  }

  /** Binds the names of an assignment target; resolves index/dot operands as uses. */
  private assign(lhs: Expr, b: Block, isLoop: boolean): void {
    switch (lhs.kind) {
      case "ident":
        this.bind(lhs, b);
        return;
      case "index":
        this.expr(lhs.x, b);
        this.expr(lhs.y, b);
        return;
      case "dot":
        this.expr(lhs.x, b);
        return;
      case "paren":
        this.assign(lhs.x, b, isLoop);
        return;
      case "tuple":
      case "list":
        if (lhs.elems.length === 0)
          this.error(lhs.pos, `can't assign to ${lhs.kind === "tuple" ? "()" : "[]"}`);
        for (const e of lhs.elems) this.assign(e, b, isLoop);
        return;
      default:
        this.error(lhs.pos, `can't assign to ${describe(lhs)}`);
    }
  }

  private bind(id: Ident, b: Block): void {
    if (b.fn.def === null && b.parent === null) {
      const prev = this.globals.get(id.name);
      if (prev) {
        if (!this.opts.globalReassign) {
          const p = prev.first.pos;
          this.error(
            id.pos,
            `cannot reassign global ${id.name} declared at ${this.file.name}:${p.line}:${p.col}`,
          );
        }
        id.binding = prev;
        return;
      }
      const binding: Binding = { scope: "global", index: this.globals.size, name: id.name, first: id };
      this.globals.set(id.name, binding);
      id.binding = binding;
      return;
    }
    // Within a function, the binding was created by the pre-pass (or is a comprehension variable).
    const found = b.names.get(id.name) ?? this.lookupFnLocal(b, id.name);
    if (found) {
      id.binding = found;
      return;
    }
    this.declareLocal(id, b);
  }

  private lookupFnLocal(b: Block, name: string): Binding | undefined {
    for (let x: Block | null = b; x && x.fn === b.fn; x = x.parent) {
      const bd = x.names.get(name);
      if (bd) return bd;
    }
    return undefined;
  }

  private declareLocal(id: Ident, b: Block): Binding {
    const binding: Binding = { scope: "local", index: b.fn.locals.length, name: id.name, first: id };
    b.fn.locals.push(binding);
    b.names.set(id.name, binding);
    id.binding = binding;
    return binding;
  }

  private func(def: FunctionDef, b: Block): void {
    const seen = new Set<string>();
    let optional = false;
    let star = false;
    for (const p of def.params) {
      if (p.kind === "default") {
        this.expr(p.dflt, b);
        optional = true;
      } else if (p.kind === "plain" && optional && !star) {
        this.error(p.name.pos, "required parameter may not follow optional");
      } else if (p.kind === "star") {
        if (star) this.error(p.pos, "multiple * parameters not allowed");
        star = true;
      }
      const name = p.kind === "star" ? p.name : p.name;
      if (name) {
        if (seen.has(name.name)) this.error(name.pos, `duplicate parameter: ${name.name}`);
        seen.add(name.name);
      }
    }
    this.pending.push({ fn: { def, locals: [], freevars: [], parent: b }, def });
  }

  private functionBody({ fn, def }: { fn: Fn; def: FunctionDef }): void {
    const block: Block = { fn, parent: fn.parent, names: new Map() };
    let numParams = 0;
    let numKwonly = 0;
    let afterStar = false;
    const plain = def.params.filter((p) => p.kind === "plain" || p.kind === "default");
    for (const p of def.params) {
      if (p.kind === "star") afterStar = true;
      if (p.kind === "plain" || p.kind === "default") {
        if (afterStar) numKwonly++;
        else numParams++;
      }
    }
    // Parameter slots: positional and keyword-only params in order, then *args, then **kwargs.
    for (const p of plain) this.declareLocal(p.name, block);
    const star = def.params.find((p) => p.kind === "star");
    if (star?.kind === "star" && star.name) this.declareLocal(star.name, block);
    const kw = def.params.find((p) => p.kind === "starstar");
    if (kw?.kind === "starstar") this.declareLocal(kw.name, block);
    def.numParams = numParams;
    def.numKwonly = numKwonly;
    def.hasVarargs = !!(star?.kind === "star" && star.name);
    def.hasKwargs = !!kw;
    // Python scoping: every name bound anywhere in the body is local to the whole body.
    collectBindings(def.body, (id) => {
      if (!block.names.has(id.name)) this.declareLocal(id, block);
    });
    const saved = this.loops;
    this.loops = 0;
    this.stmts(def.body, block, false);
    this.loops = saved;
    def.locals = fn.locals;
    def.freevars = fn.freevars;
  }

  private expr(e: Expr, b: Block): void {
    switch (e.kind) {
      case "ident":
        this.use(e, b);
        return;
      case "literal":
        return;
      case "list":
      case "tuple":
        for (const x of e.elems) this.expr(x, b);
        return;
      case "dict":
        for (const en of e.entries) {
          this.expr(en.key, b);
          this.expr(en.value, b);
        }
        return;
      case "paren":
        this.expr(e.x, b);
        return;
      case "unary":
        this.expr(e.x, b);
        return;
      case "binary":
        this.expr(e.x, b);
        this.expr(e.y, b);
        return;
      case "cond":
        this.expr(e.cond, b);
        this.expr(e.t, b);
        this.expr(e.f, b);
        return;
      case "dot":
        this.expr(e.x, b);
        return;
      case "index":
        this.expr(e.x, b);
        this.expr(e.y, b);
        return;
      case "slice":
        this.expr(e.x, b);
        if (e.lo) this.expr(e.lo, b);
        if (e.hi) this.expr(e.hi, b);
        if (e.step) this.expr(e.step, b);
        return;
      case "call": {
        this.expr(e.fn, b);
        const seen = new Set<string>();
        for (const a of e.args) {
          this.expr(a.x, b);
          if (a.kind === "named") {
            if (seen.has(a.name.name)) this.error(a.name.pos, `keyword argument ${a.name.name} repeated`);
            seen.add(a.name.name);
          }
        }
        return;
      }
      case "lambda":
        this.func(e.fn, b);
        return;
      case "comp":
        this.comprehension(e.clauses, e.body, b);
        return;
    }
  }

  private comprehension(clauses: Clause[], body: Expr | DictEntry, b: Block): void {
    const first = clauses[0];
    if (first?.kind === "for") this.expr(first.x, b);
    const inner: Block = { fn: b.fn, parent: b, names: new Map() };
    // One lexical block for the whole comprehension: every use in it (but the first operand) sees all of
    // its loop variables, as Go resolves uses at the end of the block ([x for _ in [3] for x in x] fails).
    for (const c of clauses) {
      if (c.kind !== "for") continue;
      collectTargets(c.vars, (id) => {
        if (inner.names.has(id.name)) return;
        const binding: Binding = { scope: "local", index: b.fn.locals.length, name: id.name, first: id };
        b.fn.locals.push(binding);
        inner.names.set(id.name, binding);
      });
    }
    clauses.forEach((c, i) => {
      if (c.kind === "for") {
        this.assign(c.vars, inner, true);
        if (i > 0) this.expr(c.x, inner);
      } else this.expr(c.cond, inner);
    });
    if ("key" in body) {
      this.expr(body.key, inner);
      this.expr(body.value, inner);
    } else this.expr(body, inner);
  }

  private use(id: Ident, b: Block): void {
    const found = this.lookup(id.name, b);
    if (found) {
      id.binding = found;
      return;
    }
    const g = this.globals.get(id.name);
    if (g) {
      id.binding = g;
      return;
    }
    if (this.isPredeclared(id.name)) {
      id.binding = { scope: "predeclared", index: 0, name: id.name, first: id };
      return;
    }
    if (this.isUniversal(id.name)) {
      if (id.name === "set" && !this.opts.set) {
        this.error(id.pos, "this Starlark dialect does not support set");
      }
      id.binding = { scope: "universal", index: 0, name: id.name, first: id };
      return;
    }
    // Go resolves names used inside functions only at the end of the module: those errors come last.
    this.error(id.pos, `undefined: ${id.name}`, b.fn.def !== null);
  }

  /** Finds a local binding in this function's blocks, or captures one of an enclosing function. */
  private lookup(name: string, b: Block): Binding | undefined {
    for (let x: Block | null = b; x; x = x.parent) {
      if (x.fn !== b.fn) break;
      const bd = x.names.get(name);
      if (bd) return bd;
    }
    const fn = b.fn;
    if (fn.def === null || fn.parent === null) return undefined;
    const existing = fn.freevars.find((f) => f.name === name);
    if (existing) return existing;
    const outer = this.lookup(name, fn.parent);
    if (!outer) return undefined;
    if (outer.scope === "local") outer.scope = "cell";
    const free: Binding = { scope: "free", index: fn.freevars.length, name, first: outer.first };
    fn.freevars.push(free);
    OUTER.set(free, outer);
    return free;
  }
}

function collectTargets(lhs: Expr, f: (id: Ident) => void): void {
  if (lhs.kind === "ident") f(lhs);
  else if (lhs.kind === "tuple" || lhs.kind === "list") for (const e of lhs.elems) collectTargets(e, f);
  else if (lhs.kind === "paren") collectTargets(lhs.x, f);
}

/** Names bound by the statements of one function body (not nested functions or comprehensions). */
function collectBindings(stmts: Stmt[], f: (id: Ident) => void): void {
  for (const s of stmts) {
    switch (s.kind) {
      case "assign":
        collectTargets(s.lhs, f);
        break;
      case "def":
        f(s.name);
        break;
      case "for":
        collectTargets(s.vars, f);
        collectBindings(s.body, f);
        break;
      case "while":
        collectBindings(s.body, f);
        break;
      case "if":
        collectBindings(s.body, f);
        collectBindings(s.orelse, f);
        break;
      case "load":
        for (const id of s.to) f(id);
        break;
    }
  }
}

/** The name Go's resolver gives an expression that cannot be assigned (its lower-cased syntax type). */
function describe(e: Expr): string {
  switch (e.kind) {
    case "literal":
      return "literal";
    case "call":
      return "callexpr";
    case "binary":
      return "binaryexpr";
    case "unary":
      return "unaryexpr";
    case "cond":
      return "condexpr";
    case "slice":
      return "sliceexpr";
    case "dict":
      return "dictexpr";
    case "comp":
      return "comprehension";
    case "lambda":
      return "lambdaexpr";
    default:
      return `${e.kind}expr`;
  }
}
