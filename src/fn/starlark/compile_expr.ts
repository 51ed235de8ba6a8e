import type { Arg, Binding, Clause, Expr, FunctionDef, Ident } from "./ast.js";
import { annotate, call } from "./call.js";
import { fail } from "./errors.js";
import { getAttr, lookupMethod } from "./methods/index.js";
import { binary, elementsOf, index, slice, unary } from "./ops.js";
import { OUTER } from "./resolve.js";
import type { Thread } from "./thread.js";
import type { Kwargs } from "./values/callable.js";
import { equals } from "./values/compare.js";
import { Bytes, None, StarFloat, truth, typeName, type Value } from "./values/core.js";
import { HashTable, StarDict } from "./values/dict.js";
import { type Cell, type Exec, type Frame, StarFunction } from "./values/function.js";
import { StarList, StarRange, StarTuple } from "./values/list.js";
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

export function compileIdent(env: Env, id: Ident): Eval {
  const b = id.binding as Binding;
  const name = id.name;
  const i = b.index;
  switch (b.scope) {
    case "local":
      return (fr) => {
        const v = fr.locals[i] as Value | undefined;
        if (v === undefined) fail(`local variable ${name} referenced before assignment`);
        return v;
      };
    case "cell":
      return (fr) => {
        const v = (fr.locals[i] as Cell).v;
        if (v === undefined) fail(`local variable ${name} referenced before assignment`);
        return v;
      };
    case "free":
      return (fr) => {
        const v = fr.free[i]!.v;
        if (v === undefined) fail(`local variable ${name} referenced before assignment`);
        return v;
      };
    case "global": {
      const g = env.globals;
      return () => {
        const v = g[i];
        if (v === undefined) fail(`global variable ${name} referenced before assignment`);
        return v;
      };
    }
    case "predeclared": {
      const v = env.predeclared.get(name)!;
      return () => v;
    }
    default: {
      const v = env.universal.get(name);
      if (v === undefined) return () => fail(`undefined: ${name}`);
      return () => v;
    }
  }
}

export function compileExpr(env: Env, e: Expr): Eval {
  const thread = env.thread;
  switch (e.kind) {
    case "ident":
      return compileIdent(env, e);
    case "literal": {
      const lv = e.value;
      const v: Value =
        typeof lv === "object" ? ("float" in lv ? new StarFloat(lv.float) : new Bytes(lv.bytes)) : lv;
      return () => v;
    }
    case "paren":
      return compileExpr(env, e.x);
    case "list": {
      const elems = e.elems.map((x) => compileExpr(env, x));
      return (fr) => {
        thread.budget.charge(elems.length + 1);
        return new StarList(elems.map((f) => f(fr)));
      };
    }
    case "tuple": {
      const elems = e.elems.map((x) => compileExpr(env, x));
      return (fr) => new StarTuple(elems.map((f) => f(fr)));
    }
    case "dict": {
      const entries = e.entries.map((en) => [compileExpr(env, en.key), compileExpr(env, en.value)] as const);
      return (fr) => {
        const d = new StarDict();
        thread.budget.charge(entries.length + 1);
        for (const [k, v] of entries) {
          const key = k(fr);
          if (d.has(key)) fail(`duplicate key: ${repr(key)}`);
          d.set(key, v(fr));
        }
        return d;
      };
    }
    case "unary": {
      const x = compileExpr(env, e.x);
      const op = e.op;
      if (op === "not") return (fr) => !truth(x(fr));
      return (fr) => unary(op, x(fr));
    }
    case "binary":
      return compileBinary(env, e.op, compileExpr(env, e.x), compileExpr(env, e.y));
    case "cond": {
      const c = compileExpr(env, e.cond);
      const t = compileExpr(env, e.t);
      const f = compileExpr(env, e.f);
      return (fr) => (truth(c(fr)) ? t(fr) : f(fr));
    }
    case "dot": {
      const x = compileExpr(env, e.x);
      const name = e.name;
      return (fr) => getAttr(x(fr), name);
    }
    case "index": {
      const x = compileExpr(env, e.x);
      const y = compileExpr(env, e.y);
      return (fr) => {
        const xv = x(fr);
        const yv = y(fr);
        if (xv instanceof HashTable && typeof yv === "string" && xv.typeName === "dict") {
          const r = xv.get(yv);
          if (r !== undefined) return r;
        }
        return index(xv, yv);
      };
    }
    case "slice": {
      const x = compileExpr(env, e.x);
      const lo = e.lo ? compileExpr(env, e.lo) : undefined;
      const hi = e.hi ? compileExpr(env, e.hi) : undefined;
      const step = e.step ? compileExpr(env, e.step) : undefined;
      return (fr) => slice(x(fr), lo?.(fr), hi?.(fr), step?.(fr));
    }
    case "call":
      return compileCall(env, e);
    case "lambda":
      return compileFunctionValue(env, e.fn);
    case "comp":
      return compileComprehension(env, e.curly, e.body, e.clauses);
  }
}

function compileBinary(env: Env, op: string, x: Eval, y: Eval): Eval {
  const charge = (n: number) => env.thread.budget.charge(n);
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
        return binary(op, a, b, charge);
      };
    default:
      return (fr) => binary(op, x(fr), y(fr), charge);
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
    const outer = OUTER.get(fv)!;
    const idx = outer.index;
    return outer.scope === "free" ? (fr: Frame) => fr.free[idx]! : (fr: Frame) => fr.locals[idx] as Cell;
  });
  const file = env.file;
  return (fr) => {
    const defaults = dflts.map((d) => d?.(fr));
    const free = captures.map((c) => c(fr));
    return new StarFunction(def, body, defaults, free, file);
  };
}

type ArgEval = (fr: Frame, args: Value[], kwargs: Kwargs) => void;

function compileArgs(env: Env, e: Expr & { kind: "call" }): { simple?: Eval[]; general?: ArgEval[] } {
  if (e.args.every((a) => a.kind === "pos")) return { simple: e.args.map((a) => compileExpr(env, a.x)) };
  const general = e.args.map((a) => compileArg(env, a));
  return { general };
}

function compileArg(env: Env, a: Arg): ArgEval {
  const x = compileExpr(env, a.x);
  switch (a.kind) {
    case "pos":
      return (fr, args) => {
        args.push(x(fr));
      };
    case "named": {
      const name = a.name.name;
      return (fr, _args, kwargs) => {
        kwargs.push([name, x(fr)]);
      };
    }
    case "star":
      return (fr, args) => {
        const v = x(fr);
        const elems = elementsOf(v);
        if (elems === undefined) fail(`argument after * must be iterable, not ${typeName(v)}`);
        for (const el of elems) args.push(el);
      };
    case "starstar":
      return (fr, _args, kwargs) => {
        const v = x(fr);
        if (!(v instanceof StarDict)) fail(`argument after ** must be a mapping, not ${typeName(v)}`);
        for (const en of v.map.values()) {
          if (typeof en.k !== "string") fail(`keywords must be strings, not ${typeName(en.k)}`);
          if (kwargs.some(([k]) => k === en.k)) fail(`got multiple values for keyword argument "${en.k}"`);
          kwargs.push([en.k, en.v]);
        }
      };
  }
}

function compileCall(env: Env, e: Expr & { kind: "call" }): Eval {
  const thread = env.thread;
  const { simple, general } = compileArgs(env, e);
  const { line, col } = e.pos;
  const file = env.file;
  const fnName = env.fnName;
  const evalArgs = (fr: Frame): [Value[], Kwargs] => {
    if (simple) {
      const args = new Array<Value>(simple.length);
      for (let i = 0; i < simple.length; i++) args[i] = simple[i]!(fr);
      return [args, []];
    }
    const args: Value[] = [];
    const kwargs: Kwargs = [];
    for (const g of general!) g(fr, args, kwargs);
    return [args, kwargs];
  };
  if (e.fn.kind === "dot") {
    // Method call: look the method up without allocating a bound builtin.
    const recvEval = compileExpr(env, e.fn.x);
    const name = e.fn.name;
    return (fr) => {
      const recv = recvEval(fr);
      const m = lookupMethod(recv, name);
      const [args, kwargs] = evalArgs(fr);
      try {
        if (m) return m(thread, recv, args, kwargs, name);
        return call(thread, getAttr(recv, name), args, kwargs);
      } catch (err) {
        throw annotate(err, fnName, file, line, col);
      }
    };
  }
  const fnEval = compileExpr(env, e.fn);
  return (fr) => {
    const f = fnEval(fr);
    const [args, kwargs] = evalArgs(fr);
    try {
      return call(thread, f, args, kwargs);
    } catch (err) {
      throw annotate(err, fnName, file, line, col);
    }
  };
}

function compileComprehension(
  env: Env,
  curly: boolean,
  body: Expr | { key: Expr; value: Expr },
  clauses: Clause[],
): Eval {
  const thread = env.thread;
  let emit: (fr: Frame, out: StarList | StarDict) => void;
  if ("key" in body) {
    const k = compileExpr(env, body.key);
    const v = compileExpr(env, body.value);
    emit = (fr, out) => {
      thread.budget.charge(1);
      (out as StarDict).set(k(fr), v(fr));
    };
  } else {
    const x = compileExpr(env, body);
    emit = (fr, out) => {
      thread.budget.charge(1);
      (out as StarList).elems.push(x(fr));
    };
  }
  let run = emit;
  for (let i = clauses.length - 1; i >= 0; i--) {
    const c = clauses[i]!;
    const next = run;
    if (c.kind === "if") {
      const cond = compileExpr(env, c.cond);
      run = (fr, out) => {
        if (truth(cond(fr))) next(fr, out);
      };
    } else {
      const x = compileExpr(env, c.x);
      const assign = env.assign(c.vars);
      run = (fr, out) => {
        forEach(thread, x(fr), (v) => {
          assign(fr, v);
          next(fr, out);
          return 0;
        });
      };
    }
  }
  return (fr) => {
    const out = curly ? new StarDict() : new StarList();
    run(fr, out);
    return out;
  };
}

/** Iterates a value as a for loop does; `body` returns a statement code (1 = break, 3 = return). */
export function forEach(thread: Thread, x: Value, body: (v: Value) => number): number {
  const budget = thread.budget;
  if (x instanceof StarList || x instanceof HashTable) {
    const elems = x instanceof StarList ? x.elems : x.keys();
    x.iterating++;
    try {
      for (const v of elems) {
        budget.step();
        const r = body(v);
        if (r === 1) break;
        if (r === 3) return 3;
      }
    } finally {
      x.iterating--;
    }
    return 0;
  }
  if (x instanceof StarRange) {
    const n = x.length;
    for (let i = 0; i < n; i++) {
      budget.step();
      const r = body(x.at(i));
      if (r === 1) break;
      if (r === 3) return 3;
    }
    return 0;
  }
  const elems = elementsOf(x);
  if (elems === undefined) fail(`${typeName(x)} value is not iterable`);
  for (const v of elems) {
    budget.step();
    const r = body(v);
    if (r === 1) break;
    if (r === 3) return 3;
  }
  return 0;
}

export const NONE: Value = None;
