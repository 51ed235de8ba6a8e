import type { Binding, Expr, File, FunctionDef, Stmt } from "./ast.js";
import { annotate } from "./call.js";
import { forEach } from "./compile_comp.js";
import {
  bound,
  compileExpr,
  compileFunctionValue,
  compileIdent,
  type Env,
  type Eval,
} from "./compile_expr.js";
import { fail } from "./errors.js";
import { getAttr } from "./methods/index.js";
import { listExtend } from "./methods/list.js";
import { binary, elementsOf, index, setIndex } from "./ops.js";
import type { Thread } from "./thread.js";
import { Struct } from "./values/callable.js";
import { None, truth, typeName, type Value } from "./values/core.js";
import { Cell, type Exec, type Frame } from "./values/function.js";
import { StarList } from "./values/list.js";

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
const RETURN = 3;

/** Compiles a resolved file to closures; returns the module's top-level code. */
export function compileModule(
  thread: Thread,
  file: File,
  predeclared: Map<string, Value>,
  universal: Map<string, Value>,
): { run: () => void; globals: (Value | undefined)[] } {
  const globals: (Value | undefined)[] = new Array(file.globals.length).fill(undefined);
  const env = makeEnv(thread, file.name, globals, predeclared, universal, "<toplevel>");
  const body = compileBlock(env, file.stmts);
  const nlocals = file.locals.length;
  const cells = file.locals.filter((b) => b.scope === "cell").map((b) => b.index);
  return {
    globals,
    run: () => {
      const fr: Frame = { locals: new Array(nlocals), free: [], ret: undefined };
      for (const i of cells) fr.locals[i] = new Cell(undefined);
      body(fr);
    },
  };
}

function makeEnv(
  thread: Thread,
  file: string,
  globals: (Value | undefined)[],
  predeclared: Map<string, Value>,
  universal: Map<string, Value>,
  fnName: string,
): Env {
  const env: Env = {
    thread,
    file,
    globals,
    predeclared,
    universal,
    fnName,
    compileFunction: (def: FunctionDef) => {
      const inner = makeEnv(thread, file, globals, predeclared, universal, def.name);
      return compileBlock(inner, def.body);
    },
    assign: (lhs: Expr) => compileAssign(env, lhs),
  };
  return env;
}

function compileBlock(env: Env, stmts: Stmt[]): Exec {
  const compiled = stmts.map((s) => compileStmt(env, s));
  const [only] = compiled;
  if (only && compiled.length === 1) return only;
  return (fr) => {
    for (const exec of compiled) {
      const r = exec(fr);
      if (r !== NORMAL) return r;
    }
    return NORMAL;
  };
}

function storeBinding(env: Env, b: Binding): (fr: Frame, v: Value) => void {
  const i = b.index;
  switch (b.scope) {
    case "local":
      return (fr, v) => {
        fr.locals[i] = v;
      };
    case "cell":
      return (fr, v) => {
        (fr.locals[i] as Cell).v = v;
      };
    case "free":
      return (fr, v) => {
        // the resolver gave each free variable its cell's index
        fr.free[i]!.v = v;
      };
    case "global": {
      const g = env.globals;
      return (_fr, v) => {
        g[i] = v;
      };
    }
    default:
      return () => fail(`cannot assign to ${b.name}`);
  }
}

function compileAssign(env: Env, lhs: Expr): (fr: Frame, v: Value) => void {
  switch (lhs.kind) {
    case "ident":
      return storeBinding(env, bound(lhs));
    case "paren":
      return compileAssign(env, lhs.x);
    case "index": {
      const x = compileExpr(env, lhs.x);
      const y = compileExpr(env, lhs.y);
      const pos = lhs.pos;
      const thread = env.thread;
      return (fr, v) => {
        const xv = x(fr);
        const yv = y(fr);
        thread.pos = pos;
        setIndex(xv, yv, v);
      };
    }
    case "dot": {
      const x = compileExpr(env, lhs.x);
      const name = lhs.name;
      const pos = lhs.pos;
      const thread = env.thread;
      return (fr) => {
        const t = x(fr);
        thread.pos = pos;
        fail(`can't assign to .${name} field of ${typeName(t)}`);
      };
    }
    case "tuple":
    case "list": {
      const targets = lhs.elems.map((e) => compileAssign(env, e));
      const pos = lhs.pos;
      const thread = env.thread;
      return (fr, v) => {
        const elems = elementsOf(v);
        thread.pos = pos;
        if (elems === undefined || typeof v === "string") fail(`got ${typeName(v)} in sequence assignment`);
        if (elems.length > targets.length)
          fail(`too many values to unpack (got ${elems.length}, want ${targets.length})`);
        if (elems.length < targets.length)
          fail(`too few values to unpack (got ${elems.length}, want ${targets.length})`);
        // elems has at least as many values as targets: checked above
        for (let i = 0; i < targets.length; i++) targets[i]!(fr, elems[i]!);
      };
    }
    default:
      return () => fail("cannot assign");
  }
}

function compileAugAssign(env: Env, s: Stmt & { kind: "assign" }): Exec {
  const op = s.op.slice(0, -1);
  const rhs = compileExpr(env, s.rhs);
  const thread = env.thread;
  const charge = (n: number) => thread.budget.charge(n);
  const pos = s.pos;
  const apply = (x: Value, y: Value): Value => {
    thread.pos = pos;
    // list += iterable extends in place; anything else is the binary operator (list + int fails)
    if (op === "+" && x instanceof StarList && elementsOf(y) !== undefined) {
      x.checkMutable("apply += to");
      listExtend(env.thread, x, y);
      return x;
    }
    return binary(op, x, y, charge);
  };
  const lhs = s.lhs;
  if (lhs.kind === "ident") {
    const get = compileIdent(env, lhs);
    const set = storeBinding(env, bound(lhs));
    return (fr) => {
      set(fr, apply(get(fr), rhs(fr)));
      return NORMAL;
    };
  }
  if (lhs.kind === "index") {
    const x = compileExpr(env, lhs.x);
    const y = compileExpr(env, lhs.y);
    return (fr) => {
      const xv = x(fr);
      const yv = y(fr);
      thread.pos = lhs.pos;
      const old = index(xv, yv);
      const nv = apply(old, rhs(fr));
      thread.pos = lhs.pos;
      setIndex(xv, yv, nv);
      return NORMAL;
    };
  }
  const x = compileExpr(env, (lhs as Expr & { kind: "dot" }).x);
  const name = (lhs as Expr & { kind: "dot" }).name;
  return (fr) => {
    const xv = x(fr);
    thread.pos = lhs.pos;
    getAttr(xv, name);
    fail(`can't assign to .${name} field of ${typeName(xv)}`);
  };
}

function compileStmt(env: Env, s: Stmt): Exec {
  switch (s.kind) {
    case "expr": {
      const x = compileExpr(env, s.x);
      return (fr) => {
        x(fr);
        return NORMAL;
      };
    }
    case "assign": {
      if (s.op !== "=") return compileAugAssign(env, s);
      const rhs = compileExpr(env, s.rhs);
      const store = compileAssign(env, s.lhs);
      return (fr) => {
        store(fr, rhs(fr));
        return NORMAL;
      };
    }
    case "def": {
      const make = compileFunctionValue(env, s.fn);
      const store = storeBinding(env, bound(s.name));
      return (fr) => {
        store(fr, make(fr));
        return NORMAL;
      };
    }
    case "if": {
      const cond = compileExpr(env, s.cond);
      const then = compileBlock(env, s.body);
      const els = s.orelse.length > 0 ? compileBlock(env, s.orelse) : undefined;
      return (fr) => {
        if (truth(cond(fr))) return then(fr);
        return els ? els(fr) : NORMAL;
      };
    }
    case "for":
      return compileFor(env, s);
    case "while":
      return compileWhile(env, s);
    case "return": {
      const x: Eval | undefined = s.x ? compileExpr(env, s.x) : undefined;
      return (fr) => {
        fr.ret = x ? x(fr) : None;
        return RETURN;
      };
    }
    case "branch":
      if (s.token === "pass") return () => NORMAL;
      return s.token === "break" ? () => BREAK : () => CONTINUE;
    case "load":
      return compileLoad(env, s);
  }
}

function compileFor(env: Env, s: Stmt & { kind: "for" }): Exec {
  const x = compileExpr(env, s.x);
  const assign = compileAssign(env, s.vars);
  const body = compileBlock(env, s.body);
  const thread = env.thread;
  const pos = s.pos;
  return (fr) =>
    forEach(
      thread,
      x(fr),
      (v) => {
        assign(fr, v);
        const r = body(fr);
        return r === CONTINUE ? NORMAL : r;
      },
      pos,
    );
}

/** A while loop, one budget step per iteration. */
function compileWhile(env: Env, s: Stmt & { kind: "while" }): Exec {
  const cond = compileExpr(env, s.cond);
  const body = compileBlock(env, s.body);
  const budget = env.thread.budget;
  return (fr) => {
    while (truth(cond(fr))) {
      budget.step();
      const r = body(fr);
      if (r === BREAK) break;
      if (r === RETURN) return RETURN;
    }
    return NORMAL;
  };
}

/** `load(module, names...)`: the module loaded through the thread, each name bound (a `_` name is not exported). */
function compileLoad(env: Env, s: Stmt & { kind: "load" }): Exec {
  const thread = env.thread;
  const stores = s.to.map((id) => storeBinding(env, bound(id)));
  const { module, from } = s;
  const { line, col } = s.pos;
  return (fr) => {
    let members: Map<string, Value>;
    try {
      members = thread.load(module);
    } catch (e) {
      throw annotate(e, env.fnName, env.file, line, col);
    }
    from.forEach((name, i) => {
      const v = members.get(name);
      if (v === undefined || name.startsWith("_")) fail(`load: name ${name} not found in module ${module}`);
      // one store per name loaded
      stores[i]!(fr, v);
    });
    return NORMAL;
  };
}

export function moduleStruct(name: string, members: Record<string, Value>): Struct {
  return new Struct("module", name, new Map(Object.entries(members)));
}
