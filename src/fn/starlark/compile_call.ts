import type { Arg, Expr, Pos } from "./ast.js";
import { annotate, call, placeBuiltin } from "./call.js";
import { compileExpr, type Env, type Eval } from "./compile_expr.js";
import { fail } from "./errors.js";
import { getAttr, lookupMethod } from "./methods/index.js";
import { elementsOf } from "./ops.js";
import type { Kwargs } from "./values/callable.js";
import { None, typeName, type Value } from "./values/core.js";
import { StarDict } from "./values/dict.js";
import type { Frame } from "./values/function.js";

/** Call expressions: argument evaluation (Go's order: positional, named, *args, **kwargs) and the call. */

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
          kwargs.push([en.k, en.v]);
        }
      };
  }
}

export function compileCall(env: Env, e: Expr & { kind: "call" }): Eval {
  const thread = env.thread;
  const { simple, general } = compileArgs(env, e);
  const { line, col } = e.pos;
  const file = env.file;
  const fnName = env.fnName;
  const evalArgs = (fr: Frame): [Value[], Kwargs] => {
    if (simple) {
      const args = new Array<Value>(simple.length);
      // i < simple.length
      for (let i = 0; i < simple.length; i++) args[i] = simple[i]!(fr);
      return [args, []];
    }
    const args: Value[] = [];
    const kwargs: Kwargs = [];
    for (const g of general ?? []) g(fr, args, kwargs);
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
      const f = m ? None : getAttr(recv, name);
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
        return call(thread, f, args, kwargs);
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
