import { positional, unpack, wantInt, wantString } from "./args.js";
import { fail } from "./errors.js";
import { parseIntLiteral } from "./intparse.js";
import { dictUpdate } from "./methods/dict.js";
import { attrNames, getAttr, hasAttr } from "./methods/index.js";
import { elementsOf, iterArg, lengthOf } from "./ops.js";
import { Thread } from "./thread.js";
import { decodeRune, encodeRune, fromBytes, runeCount, toBytes } from "./utf8.js";
import { Builtin, type BuiltinImpl, Callable } from "./values/callable.js";
import { compare } from "./values/compare.js";
import { Bytes, isInt, None, normInt, StarFloat, truth, typeName, type Value } from "./values/core.js";
import { StarDict, StarSet } from "./values/dict.js";
import { hashKey } from "./values/hash.js";
import { StarList, StarRange, StarTuple } from "./values/list.js";
import { repr, str } from "./values/repr.js";

type Impl = (thread: Thread, args: Value[], kwargs: [string, Value][]) => Value;

/** Go's Unpack into a Callable: `f: for parameter p: got T, want callable`. */
function wantCallable(fname: string, param: string, v: Value): void {
  if (!(v instanceof Callable)) fail(`${fname}: for parameter ${param}: got ${typeName(v)}, want callable`);
}

function minmax(name: string, sign: number): Impl {
  return (thread, args, kwargs) => {
    if (args.length === 0) fail(`${name} requires at least one positional argument`);
    const [key] = unpack(name, [], kwargs, ["key?"]);
    if (key !== undefined) wantCallable(name, "key", key);
    const [only] = args;
    const elems = only !== undefined && args.length === 1 ? elementsOf(only) : args;
    if (elems === undefined) return fail(`${name}: ${typeName(only ?? None)} value is not iterable`);
    const [first, ...rest] = elems;
    if (first === undefined) return fail(`${name}: argument is an empty sequence`);
    let best = first;
    let bestKey = key && key !== None ? thread.call(key, [best]) : best;
    for (const e of rest) {
      const k = key && key !== None ? thread.call(key, [e]) : e;
      if (compare("<", k, bestKey) * sign < 0) {
        best = e;
        bestKey = k;
      }
    }
    return best;
  };
}

function hashString(s: string): number {
  // Go starlark's string hash is FNV-1a over the bytes (32-bit), returned as an int.
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

function toFloat(v: Value): number {
  if (v instanceof StarFloat) return v.v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (isInt(v)) {
    const f = Number(v);
    if (!Number.isFinite(f)) fail("int too large to convert to float");
    return f;
  }
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (/^[+-]?(inf|infinity)$/.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(s)) return Number.NaN;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s)) fail(`float: invalid syntax`);
    return Number(s);
  }
  return fail(`float: got ${typeName(v)}, want number or string`);
}

const IMPLS: Record<string, Impl> = {
  abs(_t, args, kwargs) {
    const [x] = positional("abs", args, kwargs, 1);
    if (typeof x === "number") return Math.abs(x);
    if (typeof x === "bigint") return normInt(x < 0n ? -x : x);
    if (x instanceof StarFloat) return new StarFloat(Math.abs(x.v));
    return fail(`abs: got ${typeName(x)}, want int or float`);
  },
  all(_t, args, kwargs) {
    const [x] = positional("all", args, kwargs, 1);
    return iterArg("all", 1, x).every(truth);
  },
  any(_t, args, kwargs) {
    const [x] = positional("any", args, kwargs, 1);
    return iterArg("any", 1, x).some(truth);
  },
  bool(_t, args, kwargs) {
    const [x] = positional("bool", args, kwargs, 0, 1);
    return x === undefined ? false : truth(x);
  },
  bytes(_t, args, kwargs) {
    const [x] = positional("bytes", args, kwargs, 1);
    if (x instanceof Bytes) return x;
    if (typeof x === "string") return new Bytes(x);
    const elems = elementsOf(x);
    if (elems === undefined) fail(`bytes: got ${typeName(x)}, want string, bytes, or iterable of ints`);
    return new Bytes(elems.map((e) => String.fromCharCode(wantInt("bytes", "x", e) & 255)).join(""));
  },
  chr(_t, args, kwargs) {
    const [x] = positional("chr", args, kwargs, 1);
    const n = wantInt("chr", "i", x);
    if (n < 0) fail(`chr: Unicode code point ${n} out of range (<0)`);
    if (n > 0x10ffff)
      fail(`chr: Unicode code point U+${n.toString(16).toUpperCase()} out of range (>0x10FFFF)`);
    return encodeRune(n);
  },
  dict(thread, args, kwargs) {
    const d = new StarDict();
    dictUpdate("dict", d, args, kwargs);
    thread.budget.charge(d.size + 1);
    return d;
  },
  dir(_t, args, kwargs) {
    const [x] = positional("dir", args, kwargs, 1);
    return new StarList(attrNames(x));
  },
  enumerate(thread, args, kwargs) {
    const [x, s] = unpack("enumerate", args, kwargs, ["iterable", "start?"]);
    const start = s === undefined ? 0 : wantInt("enumerate", "start", s);
    const elems = iterArg("enumerate", "iterable", x);
    thread.budget.charge(elems.length);
    return new StarList(elems.map((e, i) => new StarTuple([start + i, e])));
  },
  fail(_t, args, kwargs) {
    const [sep] = unpack("fail", [], kwargs, ["sep?"]);
    const s = sep === undefined ? " " : wantString("fail", "sep", sep);
    return fail(`fail: ${args.map(str).join(s)}`);
  },
  float(_t, args, kwargs) {
    const [x] = positional("float", args, kwargs, 0, 1);
    return new StarFloat(x === undefined ? 0 : toFloat(x));
  },
  getattr(_t, args, kwargs) {
    const [x, name, dflt] = positional("getattr", args, kwargs, 2, 3);
    const n = wantString("getattr", "name", name);
    if (dflt !== undefined && !hasAttr(x, n)) return dflt;
    return getAttr(x, n);
  },
  hasattr(_t, args, kwargs) {
    const [x, name] = positional("hasattr", args, kwargs, 2);
    return hasAttr(x, wantString("hasattr", "name", name));
  },
  hash(_t, args, kwargs) {
    const [x] = positional("hash", args, kwargs, 1);
    if (typeof x === "string") return hashString(x);
    if (x instanceof Bytes) return hashString(x.b);
    hashKey(x);
    return fail(`hash: unsupported type ${typeName(x)}`);
  },
  int(_t, args, kwargs) {
    const [xv, base] = unpack("int", args, kwargs, ["x", "base?"]);
    const x = xv;
    if (typeof x === "string")
      return parseIntLiteral(x, base === undefined ? 10 : wantInt("int", "base", base));
    if (base !== undefined) fail("int: can't convert non-string with explicit base");
    if (typeof x === "boolean") return x ? 1 : 0;
    if (isInt(x)) return x;
    if (x instanceof StarFloat) {
      if (!Number.isFinite(x.v))
        fail(`int: cannot convert float ${Number.isNaN(x.v) ? "NaN" : "infinity"} to integer`);
      const t = Math.trunc(x.v);
      return Number.isSafeInteger(t) ? t : normInt(BigInt(t));
    }
    return fail(`int: got ${typeName(x)}, want int, float, or string`);
  },
  len(_t, args, kwargs) {
    const [x] = positional("len", args, kwargs, 1);
    const n = lengthOf(x);
    if (n < 0) fail(`len: value of type ${typeName(x)} has no len`);
    return n;
  },
  list(thread, args, kwargs) {
    const [x] = positional("list", args, kwargs, 0, 1);
    if (x === undefined) return new StarList();
    const elems = iterArg("list", 1, x).slice();
    thread.budget.charge(elems.length + 1);
    return new StarList(elems);
  },
  max: minmax("max", -1),
  min: minmax("min", 1),
  ord(_t, args, kwargs) {
    const [x] = positional("ord", args, kwargs, 1);
    if (x instanceof Bytes) {
      if (x.b.length !== 1) fail(`ord: bytes has length ${x.b.length}, want 1`);
      return x.b.charCodeAt(0);
    }
    const s = wantString("ord", "c", x);
    const d = s === "" ? undefined : decodeRune(s, 0);
    if (d === undefined || d.size !== s.length)
      fail(`ord: string encodes ${runeCount(s)} Unicode code points, want 1`);
    return d.r;
  },
  print(thread, args, kwargs) {
    const [sep] = unpack("print", [], kwargs, ["sep?"]);
    const s = sep === undefined ? " " : wantString("print", "sep", sep);
    thread.print(args.map(str).join(s));
    return None;
  },
  range(thread, args, kwargs) {
    const [a, b, c] = positional("range", args, kwargs, 1, 3);
    let start = 0;
    let stop: number;
    let step = 1;
    if (b === undefined) stop = wantInt("range", "stop", a);
    else {
      start = wantInt("range", "start", a);
      stop = wantInt("range", "stop", b);
      if (c !== undefined) step = wantInt("range", "step", c);
    }
    if (step === 0) fail("range: step argument must not be zero");
    void thread;
    return new StarRange(start, stop, step);
  },
  repr(_t, args, kwargs) {
    const [x] = positional("repr", args, kwargs, 1);
    return repr(x);
  },
  reversed(thread, args, kwargs) {
    const [x] = positional("reversed", args, kwargs, 1);
    const elems = iterArg("reversed", 1, x).slice().reverse();
    thread.budget.charge(elems.length);
    return new StarList(elems);
  },
  set(thread, args, kwargs) {
    const [x] = positional("set", args, kwargs, 0, 1);
    const s = new StarSet();
    if (x !== undefined) for (const e of iterArg("set", 1, x)) s.add(e);
    thread.budget.charge(s.size + 1);
    return s;
  },
  sorted(thread, args, kwargs) {
    const [x, key, rev] = unpack("sorted", args, kwargs, ["iterable", "key?", "reverse?"]);
    if (key !== undefined) wantCallable("sorted", "key", key);
    const elems = iterArg("sorted", "iterable", x).slice();
    thread.budget.charge(elems.length);
    const keys = key && key !== None ? elems.map((e) => thread.call(key, [e])) : elems;
    const pairs = elems.map((e, i) => ({ e, key: keys[i] ?? e, i }));
    pairs.sort((a, b) => compare("<", a.key, b.key));
    if (rev !== undefined && truth(rev)) {
      // stable reverse: sort descending while keeping equal elements in input order
      pairs.sort((a, b) => compare("<", b.key, a.key) || a.i - b.i);
    }
    return new StarList(pairs.map((p) => p.e));
  },
  str(_t, args, kwargs) {
    const [x] = positional("str", args, kwargs, 1);
    // the same bytes, with invalid UTF-8 replaced by the encoding of U+FFFD
    if (x instanceof Bytes) return toBytes(fromBytes(x.b));
    return str(x);
  },
  tuple(_t, args, kwargs) {
    const [x] = positional("tuple", args, kwargs, 0, 1);
    if (x === undefined) return new StarTuple([]);
    if (x instanceof StarTuple) return x;
    return new StarTuple(iterArg("tuple", 1, x).slice());
  },
  type(_t, args, kwargs) {
    const [x] = positional("type", args, kwargs, 1);
    return typeName(x);
  },
  zip(thread, args, kwargs) {
    positional("zip", [], kwargs, 0);
    const seqs = args.map((a, i) => {
      const e = elementsOf(a);
      if (e === undefined) fail(`zip: argument #${i + 1} is not iterable: ${typeName(a)}`);
      return e;
    });
    const n = seqs.length === 0 ? 0 : Math.min(...seqs.map((s) => s.length));
    thread.budget.charge(n);
    const out: Value[] = [];
    // i < n, the shortest sequence's length
    for (let i = 0; i < n; i++) out.push(new StarTuple(seqs.map((s) => s[i]!)));
    return new StarList(out);
  },
};

/** The universal environment: Go starlark's builtins (plus None, True, False). */
export function universe(): Map<string, Value> {
  const m = new Map<string, Value>([
    ["None", None],
    ["True", true],
    ["False", false],
  ]);
  for (const [name, impl] of Object.entries(IMPLS)) {
    // The universe's builtins run on the interpreter's own thread (budget, calls back into Starlark).
    const onThread: BuiltinImpl = (ctx, args, kwargs) => {
      if (!(ctx instanceof Thread)) return fail(`${name}: called outside a Starlark thread`);
      return impl(ctx, args, kwargs);
    };
    m.set(name, new Builtin(name, onThread));
  }
  return m;
}
