import type { Clause, DictEntry, Expr, Pos } from "./ast.js";
import { compileExpr, type Env, type Eval } from "./compile_expr.js";
import { fail } from "./errors.js";
import { elementsOf } from "./ops.js";
import type { Thread } from "./thread.js";
import { truth, typeName, type Value } from "./values/core.js";
import { HashTable, StarDict } from "./values/dict.js";
import type { Frame } from "./values/function.js";
import { StarList, StarRange } from "./values/list.js";

/** Comprehensions and the iteration shared with for loops. */

export function compileComprehension(
  env: Env,
  curly: boolean,
  body: Expr | DictEntry,
  clauses: Clause[],
): Eval {
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
    // i < clauses.length
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
