import { noArgs, positional, wantInt } from "../args.js";
import { fail } from "../errors.js";
import { elementsOf } from "../ops.js";
import type { Thread } from "../thread.js";
import { equals } from "../values/compare.js";
import { None, typeName, type Value } from "../values/core.js";
import type { StarList } from "../values/list.js";
import type { MethodTable } from "./types.js";

export function listExtend(thread: Thread, l: StarList, iterable: Value): void {
  const elems = elementsOf(iterable);
  if (elems === undefined) fail(`extend: for parameter 1: got ${typeName(iterable)}, want iterable`);
  thread.budget.charge(elems.length);
  for (const e of elems.slice()) l.elems.push(e);
}

function clampIndex(i: number, n: number): number {
  if (i < 0) i += n;
  return Math.min(Math.max(i, 0), n);
}

export const LIST_METHODS: MethodTable<StarList> = {
  append(thread, l, args, kwargs) {
    const [x] = positional("append", args, kwargs, 1);
    l.checkMutable("append to");
    thread.budget.charge(1);
    l.elems.push(x);
    return None;
  },
  clear(_t, l, args, kwargs) {
    noArgs("clear", args, kwargs);
    if (l.elems.length > 0) l.checkMutable("clear");
    l.elems = [];
    return None;
  },
  extend(thread, l, args, kwargs) {
    const [x] = positional("extend", args, kwargs, 1);
    l.checkMutable("extend");
    listExtend(thread, l, x);
    return None;
  },
  index(_t, l, args, kwargs) {
    const [x, s, e] = positional("index", args, kwargs, 1, 3);
    const n = l.elems.length;
    const start = s === undefined || s === None ? 0 : clampIndex(wantInt("index", "start", s), n);
    const end = e === undefined || e === None ? n : clampIndex(wantInt("index", "end", e), n);
    for (let i = start; i < end; i++) if (equals(l.elems[i] ?? None, x)) return i;
    return fail(`index: value not in list`);
  },
  insert(thread, l, args, kwargs) {
    const [i, x] = positional("insert", args, kwargs, 2);
    l.checkMutable("insert into");
    const n = l.elems.length;
    thread.budget.charge(1);
    l.elems.splice(clampIndex(wantInt("insert", "index", i), n), 0, x);
    return None;
  },
  pop(_t, l, args, kwargs) {
    const [iv] = positional("pop", args, kwargs, 0, 1);
    const n = l.elems.length;
    let i = iv === undefined ? n - 1 : wantInt("pop", "index", iv);
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n) fail(`pop: index ${orig} out of range [${-n}:${n - 1}]`);
    l.checkMutable("pop from");
    //  0 <= i < n: checked above
    return l.elems.splice(i, 1)[0]!;
  },
  remove(_t, l, args, kwargs) {
    const [x] = positional("remove", args, kwargs, 1);
    l.checkMutable("remove from");
    const i = l.elems.findIndex((e) => equals(e, x));
    if (i < 0) fail(`remove: element not found`);
    l.elems.splice(i, 1);
    return None;
  },
};
