import { noArgs, positional, unpack } from "../args.js";
import { fail } from "../errors.js";
import { elementsOf } from "../ops.js";
import type { Kwargs } from "../values/callable.js";
import { None, typeName, type Value } from "../values/core.js";
import { StarDict, StarSet } from "../values/dict.js";
import { StarList, StarTuple } from "../values/list.js";
import { quote } from "../values/repr.js";
import type { MethodTable } from "./types.js";

/** dict.update and dict(...): pairs from a mapping or an iterable of pairs, then keyword arguments. */
export function dictUpdate(fname: string, d: StarDict, args: Value[], kwargs: Kwargs): void {
  if (args.length > 1) fail(`${fname}: got ${args.length} arguments, want at most 1`);
  const src = args[0];
  if (src !== undefined) {
    if (src instanceof StarDict) {
      for (const e of [...src.map.values()]) d.set(e.k, e.v);
    } else {
      const elems = elementsOf(src);
      if (elems === undefined) fail(`${fname}: got ${typeName(src)}, want iterable`);
      elems.forEach((pair, i) => {
        const kv = elementsOf(pair);
        if (kv === undefined)
          fail(`${fname}: dictionary update sequence element #${i} is not iterable (${typeName(pair)})`);
        if (kv.length !== 2)
          fail(`${fname}: dictionary update sequence element #${i} has length ${kv.length}, want 2`);
        //  kv holds two values: checked above
        d.set(kv[0]!, kv[1]!);
      });
    }
  }
  // The same keyword twice (k=1, **{"k": 2}) reaches the callee in Go, and dict rejects it.
  const seen = new Set<string>();
  for (const [k, v] of kwargs) {
    if (seen.has(k)) fail(`${fname}: duplicate keyword arg: ${quote(k)}`);
    seen.add(k);
    d.set(k, v);
  }
}

export const DICT_METHODS: MethodTable<StarDict> = {
  clear(_t, d, args, kwargs) {
    noArgs("clear", args, kwargs);
    d.clear();
    return None;
  },
  get(_t, d, args, kwargs) {
    const [k, dflt] = positional("get", args, kwargs, 1, 2);
    return d.get(k) ?? dflt ?? None;
  },
  items(thread, d, args, kwargs) {
    noArgs("items", args, kwargs);
    thread.budget.charge(d.size);
    return new StarList([...d.map.values()].map((e) => new StarTuple([e.k, e.v])));
  },
  keys(thread, d, args, kwargs) {
    noArgs("keys", args, kwargs);
    thread.budget.charge(d.size);
    return new StarList(d.keys());
  },
  values(thread, d, args, kwargs) {
    noArgs("values", args, kwargs);
    thread.budget.charge(d.size);
    return new StarList([...d.map.values()].map((e) => e.v));
  },
  pop(_t, d, args, kwargs) {
    const [k, dflt] = positional("pop", args, kwargs, 1, 2);
    const v = d.delete(k);
    if (v !== undefined) return v;
    if (dflt !== undefined) return dflt;
    return fail("pop: missing key");
  },
  popitem(_t, d, args, kwargs) {
    noArgs("popitem", args, kwargs);
    const first = d.map.values().next();
    if (first.done) fail("popitem: empty dict");
    d.delete(first.value.k);
    return new StarTuple([first.value.k, first.value.v]);
  },
  setdefault(_t, d, args, kwargs) {
    const [k, dflt] = unpack("setdefault", args, kwargs, ["key", "default?"]);
    const v = d.get(k);
    if (v !== undefined) return v;
    const nv = dflt ?? None;
    d.set(k, nv);
    return nv;
  },
  update(_t, d, args, kwargs) {
    dictUpdate("update", d, args, kwargs);
    return None;
  },
};

function setOf(fname: string, v: Value): Value[] {
  const elems = elementsOf(v);
  if (elems === undefined) fail(`${fname}: got ${typeName(v)}, want iterable`);
  return elems;
}

function fromKeys(keys: Value[]): StarSet {
  const s = new StarSet();
  for (const k of keys) s.add(k);
  return s;
}

export const SET_METHODS: MethodTable<StarSet> = {
  add(thread, s, args, kwargs) {
    const [x] = positional("add", args, kwargs, 1);
    if (!s.has(x)) {
      thread.budget.charge(1);
      s.add(x);
    }
    return None;
  },
  clear(_t, s, args, kwargs) {
    noArgs("clear", args, kwargs);
    s.clear();
    return None;
  },
  discard(_t, s, args, kwargs) {
    const [x] = positional("discard", args, kwargs, 1);
    s.delete(x);
    return None;
  },
  remove(_t, s, args, kwargs) {
    const [x] = positional("remove", args, kwargs, 1);
    if (s.delete(x) === undefined) fail("remove: missing key");
    return None;
  },
  pop(_t, s, args, kwargs) {
    noArgs("pop", args, kwargs);
    const first = s.map.values().next();
    if (first.done) fail("pop: empty set");
    s.delete(first.value.k);
    return first.value.k;
  },
  union(_t, s, args, kwargs) {
    const [x] = positional("union", args, kwargs, 1);
    return fromKeys([...s.keys(), ...setOf("union", x)]);
  },
  intersection(_t, s, args, kwargs) {
    const [x] = positional("intersection", args, kwargs, 1);
    const other = fromKeys(setOf("intersection", x));
    return fromKeys(s.keys().filter((k) => other.has(k)));
  },
  difference(_t, s, args, kwargs) {
    const [x] = positional("difference", args, kwargs, 1);
    const other = fromKeys(setOf("difference", x));
    return fromKeys(s.keys().filter((k) => !other.has(k)));
  },
  symmetric_difference(_t, s, args, kwargs) {
    const [x] = positional("symmetric_difference", args, kwargs, 1);
    const other = fromKeys(setOf("symmetric_difference", x));
    return fromKeys([...s.keys().filter((k) => !other.has(k)), ...other.keys().filter((k) => !s.has(k))]);
  },
  issubset(_t, s, args, kwargs) {
    const [x] = positional("issubset", args, kwargs, 1);
    const other = fromKeys(setOf("issubset", x));
    return s.keys().every((k) => other.has(k));
  },
  issuperset(_t, s, args, kwargs) {
    const [x] = positional("issuperset", args, kwargs, 1);
    return setOf("issuperset", x).every((k) => s.has(k));
  },
};
