import type { Arg, Binding, Clause, DictEntry, Expr, FunctionDef, Ident, Pos } from "./ast.js";
import { annotate, call, placeBuiltin } from "./call.js";
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
      const v = env.predeclared.get(name)!;
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
    case "unary": {
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
    case "binary":
      return compileBinary(env, e.op, compileExpr(env, e.x), compileExpr(env, e.y), e.pos);
    case "cond": {
      const c = compileExpr(env, e.cond);
      const t = compileExpr(env, e.t);
      const f = compileExpr(env, e.f);
      return (fr) => (truth(c(fr)) ? t(fr) : f(fr));
    }
    case "dot": {
      const x = compileExpr(env, e.x);
      const name = e.name;
      const pos = e.pos;
      return (fr) => {
        const v = x(fr);
        thread.pos = pos;
        return getAttr(v, name);
      };
    }
    case "index": {
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
    case "slice": {
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
    case "call":
      return compileCall(env, e);
    case "lambda":
      return compileFunctionValue(env, e.fn);
    case "comp":
      return compileComprehension(env, e.curly, e.body, e.clauses);
  }
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
  const general = e.args.map((a) => compileArg(env, a, e.pos));
  return { general };
}

function compileArg(env: Env, a: Arg, pos: Pos): ArgEval {
  const x = compileExpr(env, a.x);
  const thread = env.thread;
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
        thread.pos = pos;
        if (elems === undefined) fail(`argument after * must be iterable, not ${typeName(v)}`);
        for (const el of elems) args.push(el);
      };
    case "starstar":
      return (fr, _args, kwargs) => {
        const v = x(fr);
        thread.pos = pos;
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
    const dotPos = e.fn.pos;
    const pos = e.pos;
    return (fr) => {
      const recv = recvEval(fr);
      const m = lookupMethod(recv, name);
      if (!m) thread.pos = dotPos;
      const f = m ? undefined : getAttr(recv, name);
      const [args, kwargs] = evalArgs(fr);
      thread.pos = pos;
      try {
        if (m) {
          try {
            return m(thread, recv, args, kwargs, name);
          } catch (err) {
            throw placeBuiltin(err, name);
          }
        }
        return call(thread, f!, args, kwargs);
      } catch (err) {
        throw annotate(err, fnName, file, line, col);
      }
    };
  }
  const fnEval = compileExpr(env, e.fn);
  const pos = e.pos;
  return (fr) => {
    const f = fnEval(fr);
    const [args, kwargs] = evalArgs(fr);
    thread.pos = pos;
    try {
      return call(thread, f, args, kwargs);
    } catch (err) {
      throw annotate(err, fnName, file, line, col);
    }
  };
}

function compileComprehension(env: Env, curly: boolean, body: Expr | DictEntry, clauses: Clause[]): Eval {
  const thread = env.thread;
  let emit: (fr: Frame, out: StarList | StarDict) => void;
  if ("key" in body) {
    const k = compileExpr(env, body.key);
    const v = compileExpr(env, body.value);
    const colon = body.colon;
    emit = (fr, out) => {
      thread.budget.charge(1);
      const key = k(fr);
      const val = v(fr);
      thread.pos = colon;
      (out as StarDict).set(key, val);
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
      const pos = c.pos;
      run = (fr, out) => {
        forEach(
          thread,
          x(fr),
          (v) => {
            assign(fr, v);
            next(fr, out);
            return 0;
          },
          pos,
        );
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
export function forEach(thread: Thread, x: Value, body: (v: Value) => number, pos?: Pos): number {
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
  if (elems === undefined) {
    if (pos) thread.pos = pos;
    fail(`${typeName(x)} value is not iterable`);
  }
  for (const v of elems) {
    budget.step();
    const r = body(v);
    if (r === 1) break;
    if (r === 3) return 3;
  }
  return 0;
}

export const NONE: Value = None;
