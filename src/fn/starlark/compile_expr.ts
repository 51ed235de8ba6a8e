import type { Binding, Expr, FunctionDef, Ident, Pos } from "./ast.js";
import { compileCall } from "./compile_call.js";
import { compileComprehension } from "./compile_comp.js";
import { fail } from "./errors.js";
import { getAttr } from "./methods/index.js";
import { binary, index, slice, unary } from "./ops.js";
import { OUTER } from "./resolve.js";
import type { Thread } from "./thread.js";
import { equals } from "./values/compare.js";
import { Bytes, StarFloat, truth, type Value } from "./values/core.js";
import { HashTable, StarDict } from "./values/dict.js";
import { type Cell, type Exec, type Frame, StarFunction } from "./values/function.js";
import { StarList, StarTuple } from "./values/list.js";
import { repr } from "./values/repr.js";

export type Eval = (fr: Frame) => Value;

/** What expression compilation needs from its surroundings. */
export interface Env {
  thread: Thread;
  file: string;
  globals: (Value | undefined)[];
  predeclared: Map<string, Value>;
  universal: Map<string, Value>;
  /** Name of the function being compiled (for backtraces). */
  fnName: string;
  compileFunction(def: FunctionDef): Exec;
  assign(lhs: Expr): (fr: Frame, v: Value) => void;
}

/** The binding the resolver gave an identifier (compiling follows resolving: every identifier has one). */
export function bound(id: Ident): Binding {
  if (!id.binding) return fail(`internal error: ${id.name} was not resolved`);
  return id.binding;
}

export function compileIdent(env: Env, id: Ident): Eval {
  const b = bound(id);
  const name = id.name;
  const i = b.index;
  const thread = env.thread;
  const pos = id.pos;
  const unbound = (kind: string): never => {
    thread.pos = pos;
    return fail(`${kind} variable ${name} referenced before assignment`);
  };
  switch (b.scope) {
    case "local":
      return (fr) => {
        const v = fr.locals[i] as Value | undefined;
        if (v === undefined) return unbound("local");
        return v;
      };
    case "cell":
      return (fr) => {
        const v = (fr.locals[i] as Cell).v;
        if (v === undefined) return unbound("local");
        return v;
      };
    case "free":
      return (fr) => {
        // the resolver gave each free variable its cell's index
        const v = fr.free[i]!.v;
        if (v === undefined) return unbound("local");
        return v;
      };
    case "global": {
      const g = env.globals;
      return () => {
        const v = g[i];
        if (v === undefined) return unbound("global");
        return v;
      };
    }
    case "predeclared": {
      const v = env.predeclared.get(name);
      if (v === undefined) return fail(`undefined: ${name}`);
      return () => v;
    }
    default: {
      const v = env.universal.get(name);
      if (v === undefined)
        return () => {
          thread.pos = pos;
          return fail(`undefined: ${name}`);
        };
      return () => v;
    }
  }
}

export function compileExpr(env: Env, e: Expr): Eval {
  switch (e.kind) {
    case "ident":
      return compileIdent(env, e);
    case "literal":
      return compileLiteral(e);
    case "paren":
      return compileExpr(env, e.x);
    case "list":
      return compileList(env, e);
    case "tuple": {
      const elems = e.elems.map((x) => compileExpr(env, x));
      return (fr) => new StarTuple(elems.map((f) => f(fr)));
    }
    case "dict":
      return compileDict(env, e);
    case "unary":
      return compileUnary(env, e);
    case "binary":
      return compileBinary(env, e.op, compileExpr(env, e.x), compileExpr(env, e.y), e.pos);
    case "cond": {
      const c = compileExpr(env, e.cond);
      const t = compileExpr(env, e.t);
      const f = compileExpr(env, e.f);
      return (fr) => (truth(c(fr)) ? t(fr) : f(fr));
    }
    case "dot":
      return compileDot(env, e);
    case "index":
      return compileIndex(env, e);
    case "slice":
      return compileSlice(env, e);
    case "call":
      return compileCall(env, e);
    case "lambda":
      return compileFunctionValue(env, e.fn);
    case "comp":
      return compileComprehension(env, e.curly, e.body, e.clauses);
  }
}

function compileLiteral(e: Expr & { kind: "literal" }): Eval {
  const lv = e.value;
  const v: Value =
    typeof lv === "object" ? ("float" in lv ? new StarFloat(lv.float) : new Bytes(lv.bytes)) : lv;
  return () => v;
}

function compileList(env: Env, e: Expr & { kind: "list" }): Eval {
  const thread = env.thread;
  const elems = e.elems.map((x) => compileExpr(env, x));
  return (fr) => {
    thread.budget.charge(elems.length + 1);
    return new StarList(elems.map((f) => f(fr)));
  };
}

/** A dict literal: its keys and values evaluated in order, a duplicate key failing at its colon. */
function compileDict(env: Env, e: Expr & { kind: "dict" }): Eval {
  const thread = env.thread;
  const entries = e.entries.map(
    (en) => [compileExpr(env, en.key), compileExpr(env, en.value), en.colon] as const,
  );
  return (fr) => {
    const d = new StarDict();
    thread.budget.charge(entries.length + 1);
    for (const [k, v, colon] of entries) {
      const key = k(fr);
      const val = v(fr);
      thread.pos = colon;
      if (d.has(key)) fail(`duplicate key: ${repr(key)}`);
      d.set(key, val);
    }
    return d;
  };
}

function compileUnary(env: Env, e: Expr & { kind: "unary" }): Eval {
  const thread = env.thread;
  const x = compileExpr(env, e.x);
  const op = e.op;
  if (op === "not") return (fr) => !truth(x(fr));
  const pos = e.pos;
  return (fr) => {
    const v = x(fr);
    thread.pos = pos;
    return unary(op, v);
  };
}

function compileDot(env: Env, e: Expr & { kind: "dot" }): Eval {
  const thread = env.thread;
  const x = compileExpr(env, e.x);
  const name = e.name;
  const pos = e.pos;
  return (fr) => {
    const v = x(fr);
    thread.pos = pos;
    return getAttr(v, name);
  };
}

/** `x[y]`, with a dict's string key looked up directly. */
function compileIndex(env: Env, e: Expr & { kind: "index" }): Eval {
  const thread = env.thread;
  const x = compileExpr(env, e.x);
  const y = compileExpr(env, e.y);
  const pos = e.pos;
  return (fr) => {
    const xv = x(fr);
    const yv = y(fr);
    if (xv instanceof HashTable && typeof yv === "string" && xv.typeName === "dict") {
      const r = xv.get(yv);
      if (r !== undefined) return r;
    }
    thread.pos = pos;
    return index(xv, yv);
  };
}

function compileSlice(env: Env, e: Expr & { kind: "slice" }): Eval {
  const thread = env.thread;
  const x = compileExpr(env, e.x);
  const lo = e.lo ? compileExpr(env, e.lo) : undefined;
  const hi = e.hi ? compileExpr(env, e.hi) : undefined;
  const step = e.step ? compileExpr(env, e.step) : undefined;
  const pos = e.pos;
  return (fr) => {
    const xv = x(fr);
    const l = lo?.(fr);
    const h = hi?.(fr);
    const st = step?.(fr);
    thread.pos = pos;
    return slice(xv, l, h, st);
  };
}

function compileBinary(env: Env, op: string, x: Eval, y: Eval, pos: Pos): Eval {
  const thread = env.thread;
  const charge = (n: number) => thread.budget.charge(n);
  switch (op) {
    case "and":
      return (fr) => {
        const a = x(fr);
        return truth(a) ? y(fr) : a;
      };
    case "or":
      return (fr) => {
        const a = x(fr);
        return truth(a) ? a : y(fr);
      };
    case "==":
      return (fr) => {
        const a = x(fr);
        const b = y(fr);
        if (typeof a === "string" && typeof b === "string") return a === b;
        return equals(a, b);
      };
    case "!=":
      return (fr) => {
        const a = x(fr);
        const b = y(fr);
        if (typeof a === "string" && typeof b === "string") return a !== b;
        return !equals(a, b);
      };
    case "in":
      return (fr) => {
        const a = x(fr);
        const b = y(fr);
        if (typeof a === "string" && b instanceof HashTable) return b.get(a) !== undefined;
        thread.pos = pos;
        return binary(op, a, b, charge);
      };
    default:
      return (fr) => {
        const a = x(fr);
        const b = y(fr);
        thread.pos = pos;
        return binary(op, a, b, charge);
      };
  }
}

export function compileFunctionValue(env: Env, def: FunctionDef): Eval {
  const body = env.compileFunction(def);
  const total = def.numParams + def.numKwonly;
  const dflts: (Eval | undefined)[] = new Array(total).fill(undefined);
  let i = 0;
  for (const p of def.params) {
    if (p.kind === "plain") i++;
    else if (p.kind === "default") dflts[i++] = compileExpr(env, p.dflt);
  }
  const captures = def.freevars.map((fv) => {
    const outer = OUTER.get(fv);
    if (!outer) return fail(`internal error: free variable ${fv.name} has no enclosing binding`);
    const idx = outer.index;
    // the enclosing function's frame holds a cell at the resolver's index
    return outer.scope === "free" ? (fr: Frame) => fr.free[idx]! : (fr: Frame) => fr.locals[idx] as Cell;
  });
  const file = env.file;
  return (fr) => {
    const defaults = dflts.map((d) => d?.(fr));
    const free = captures.map((c) => c(fr));
    return new StarFunction(def, body, defaults, free, file);
  };
}
