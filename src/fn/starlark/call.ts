import { BUILTIN_FILE, fail, StarlarkEvalError } from "./errors.js";
import type { Thread } from "./thread.js";
import { Builtin, type Kwargs } from "./values/callable.js";
import { None, typeName, type Value } from "./values/core.js";
import { StarDict } from "./values/dict.js";
import { Cell, type Frame, StarFunction } from "./values/function.js";
import { StarTuple } from "./values/list.js";
import { quote } from "./values/repr.js";

const plural = (n: number) => (n === 1 ? "" : "s");

/** Binds call arguments to a function's parameter slots (Go starlark's setArgs). */
function bindArgs(fn: StarFunction, args: Value[], kwargs: Kwargs, locals: Frame["locals"]): void {
  const def = fn.def;
  const nparams = def.numParams;
  const nkw = def.numKwonly;
  const total = nparams + nkw;
  const nargs = args.length;
  if (total === 0 && !def.hasVarargs && !def.hasKwargs && nargs + kwargs.length > 0)
    fail(`function ${fn.name} accepts no arguments (${nargs + kwargs.length} given)`);
  if (nargs > nparams && !def.hasVarargs) {
    const atMost = fn.defaults.some((d, i) => i < nparams && d !== undefined) ? "at most " : "";
    if (nparams === 0 && nkw === 0) fail(`function ${fn.name} accepts no arguments (${nargs} given)`);
    fail(
      `function ${fn.name} accepts ${atMost}${nparams} positional argument${plural(nparams)} (${nargs} given)`,
    );
  }
  const n = Math.min(nargs, nparams);
  for (let i = 0; i < n; i++) locals[i] = args[i];
  let slot = total;
  if (def.hasVarargs) locals[slot++] = new StarTuple(nargs > nparams ? args.slice(nparams) : []);
  let kwdict: StarDict | undefined;
  if (def.hasKwargs) {
    kwdict = new StarDict();
    locals[slot] = kwdict;
  }
  for (const [k, v] of kwargs) {
    const at = def.locals.findIndex((l) => l.name === k);
    const idx = at < total ? at : -1;
    if (idx < 0) {
      if (!kwdict) fail(`function ${fn.name} got an unexpected keyword argument ${quote(k)}`);
      if (kwdict.has(k)) fail(`function ${fn.name} got multiple values for parameter ${quote(k)}`);
      kwdict.set(k, v);
      continue;
    }
    if (locals[idx] !== undefined) fail(`function ${fn.name} got multiple values for parameter ${quote(k)}`);
    locals[idx] = v;
  }
  if (nargs < total || kwargs.length > 0) {
    const missing: string[] = [];
    for (let i = 0; i < total; i++) {
      if (locals[i] !== undefined) continue;
      const d = fn.defaults[i];
      if (d !== undefined) locals[i] = d;
      else missing.push(def.locals[i]?.name ?? `#${i}`);
    }
    if (missing.length > 0) {
      if (missing.length === 1 && nkw > 0 && def.locals.findIndex((l) => l.name === missing[0]) >= nparams) {
        fail(`function ${fn.name} missing 1 argument (${missing[0]})`);
      }
      fail(
        `function ${fn.name} missing ${missing.length} argument${plural(missing.length)} (${missing.join(", ")})`,
      );
    }
  }
}

function callFunction(thread: Thread, fn: StarFunction, args: Value[], kwargs: Kwargs): Value {
  const def = fn.def;
  thread.budget.step();
  if (!thread.dialect.recursion && thread.active.has(def)) fail(`function ${fn.name} called recursively`);
  if (thread.depth >= thread.budget.limits.maxDepth) fail("maximum recursion depth exceeded");
  const locals: Frame["locals"] = new Array(def.locals.length);
  thread.pos = def.pos;
  try {
    bindArgs(fn, args, kwargs, locals);
  } catch (e) {
    if (e instanceof StarlarkEvalError) e.place({ name: fn.name, file: fn.file, pos: def.pos });
    throw e;
  }
  for (const b of def.locals)
    if (b.scope === "cell") locals[b.index] = new Cell(locals[b.index] as Value | undefined);
  const fr: Frame = { locals, free: fn.free, ret: undefined };
  thread.depth++;
  const recursive = thread.active.has(def);
  if (!recursive) thread.active.add(def);
  try {
    fn.body(fr);
  } catch (e) {
    if (e instanceof StarlarkEvalError) e.place({ name: fn.name, file: fn.file, pos: thread.pos ?? def.pos });
    throw e;
  } finally {
    thread.depth--;
    if (!recursive) thread.active.delete(def);
  }
  return fr.ret ?? None;
}

/** Calls any callable value: Starlark functions and builtins. */
export function call(thread: Thread, fn: Value, args: Value[], kwargs: Kwargs): Value {
  if (fn instanceof StarFunction) return callFunction(thread, fn, args, kwargs);
  if (fn instanceof Builtin) {
    try {
      return fn.impl(thread, args, kwargs, fn);
    } catch (e) {
      throw placeBuiltin(e, fn.name);
    }
  }
  return fail(`invalid call of non-function (${typeName(fn)})`);
}

/** An error leaving a builtin gets the builtin's frame, as in Go (`Error in name: ...`). */
export function placeBuiltin(e: unknown, name: string): unknown {
  if (e instanceof StarlarkEvalError) e.place({ name, file: BUILTIN_FILE, pos: { line: 0, col: 0 } });
  return e;
}

/** Records a call site in the error's call stack as the error unwinds (the innermost frame if unplaced). */
export function annotate(e: unknown, fnName: string, file: string, line: number, col: number): unknown {
  if (e instanceof StarlarkEvalError) {
    e.callStack.unshift({ name: fnName, file, pos: { line, col } });
    e.placed = true;
  } else if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new StarlarkEvalError("maximum recursion depth exceeded");
  }
  return e;
}
