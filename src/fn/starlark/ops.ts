import { fail } from "./errors.js";
import { percentFormat } from "./format.js";
import { compareOp, equals } from "./values/compare.js";
import { Bytes, isInt, normInt, StarFloat, toBig, typeName, type Value } from "./values/core.js";
import { HashTable, StarDict, StarSet } from "./values/dict.js";
import { intAdd, intBitop, intFloorDiv, intMod, intMul, intSub, intToFloat } from "./values/int.js";
import { StarList, StarRange, StarTuple } from "./values/list.js";
import { repr } from "./values/repr.js";
import { StringIterable } from "./values/strings.js";

/** Charges memory for values built by operators (strings and sequences). */
export type Charge = (cells: number) => void;

function floatOf(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof StarFloat) return v.v;
  return undefined;
}

function unknown(op: string, x: Value, y: Value): never {
  return fail(`unknown binary op: ${typeName(x)} ${op} ${typeName(y)}`);
}

function floatMod(a: number, b: number): number {
  if (b === 0) fail("floating-point modulo by zero");
  let r = a % b;
  if (r !== 0 && r < 0 !== b < 0) r += b;
  return r;
}

/** Go's checks on `seq * n`: the count must fit in 32 bits and the result in 2^30 elements. */
function repeatCount(len: number, n: number | bigint): number {
  if (len === 0) return 0;
  if (n > 2147483647 || n < -2147483648) fail(`repeat count ${n} too large`);
  const k = Number(n);
  if (k < 1) return 0;
  if (len * k >= 2 ** 30) fail(`excessive repeat (${len} * ${k} elements)`);
  return k;
}

function repeat<T>(elems: T[], n: number | bigint, charge: Charge): T[] {
  const k = repeatCount(elems.length, n);
  if (k === 0) return [];
  charge(elems.length * k);
  const out: T[] = [];
  for (let i = 0; i < k; i++) for (const e of elems) out.push(e);
  return out;
}

function repeatString(s: string, n: number | bigint, charge: Charge): string {
  const k = repeatCount(s.length, n);
  if (k === 0) return "";
  charge(s.length * k);
  return s.repeat(k);
}

/** Binary operators other than `and`/`or`. */
export function binary(op: string, x: Value, y: Value, charge: Charge): Value {
  switch (op) {
    case "+":
      if (typeof x === "number" && typeof y === "number") {
        const r = x + y;
        return Number.isSafeInteger(r) ? r : intAdd(x, y);
      }
      if (typeof x === "string" && typeof y === "string") {
        charge(x.length + y.length);
        return x + y;
      }
      if (isInt(x) && isInt(y)) return intAdd(x, y);
      if (x instanceof StarList && y instanceof StarList) {
        charge(x.elems.length + y.elems.length);
        return new StarList(x.elems.concat(y.elems));
      }
      if (x instanceof StarTuple && y instanceof StarTuple) return new StarTuple(x.elems.concat(y.elems));
      if (x instanceof Bytes && y instanceof Bytes) return new Bytes(x.b + y.b);
      return arith(op, x, y);
    case "-":
      if (isInt(x) && isInt(y)) return intSub(x, y);
      if (x instanceof StarSet && y instanceof StarSet) return setOp(op, x, y);
      return arith(op, x, y);
    case "*":
      if (isInt(x) && isInt(y)) return intMul(x, y);
      if (typeof x === "string" && isInt(y)) return repeatString(x, y, charge);
      if (isInt(x) && typeof y === "string") return repeatString(y, x, charge);
      if (x instanceof StarList && isInt(y)) return new StarList(repeat(x.elems, y, charge));
      if (isInt(x) && y instanceof StarList) return new StarList(repeat(y.elems, x, charge));
      if (x instanceof StarTuple && isInt(y)) return new StarTuple(repeat(x.elems, y, charge));
      if (isInt(x) && y instanceof StarTuple) return new StarTuple(repeat(y.elems, x, charge));
      if (x instanceof Bytes && isInt(y)) return new Bytes(repeatString(x.b, y, charge));
      return arith(op, x, y);
    case "/": {
      const a = floatOf(x);
      const b = floatOf(y);
      if (a === undefined || b === undefined || typeof x === "boolean" || typeof y === "boolean")
        return unknown(op, x, y);
      if (b === 0) fail("floating-point division by zero");
      return new StarFloat(a / b);
    }
    case "//":
      if (isInt(x) && isInt(y)) return intFloorDiv(x, y);
      return arith(op, x, y);
    case "%":
      if (typeof x === "string") return percentFormat(x, y);
      if (isInt(x) && isInt(y)) return intMod(x, y);
      return arith(op, x, y);
    case "&":
    case "|":
    case "^":
    case "<<":
    case ">>":
      if (isInt(x) && isInt(y)) return intBitop(op, x, y);
      if (x instanceof StarSet && y instanceof StarSet && op !== "<<" && op !== ">>") return setOp(op, x, y);
      if (op === "|" && x instanceof StarDict && y instanceof StarDict) {
        const d = new StarDict();
        for (const e of x.map.values()) d.set(e.k, e.v);
        for (const e of y.map.values()) d.set(e.k, e.v);
        return d;
      }
      return unknown(op, x, y);
    case "in":
      return contains(y, x);
    case "not in":
      return !contains(y, x);
    default:
      return compareOp(op, x, y);
  }
}

function arith(op: string, x: Value, y: Value): Value {
  const xf = x instanceof StarFloat || isInt(x);
  const yf = y instanceof StarFloat || isInt(y);
  if (!xf || !yf) return unknown(op, x, y);
  const a = x instanceof StarFloat ? x.v : intToFloat(x as number | bigint);
  const b = y instanceof StarFloat ? y.v : intToFloat(y as number | bigint);
  switch (op) {
    case "+":
      return new StarFloat(a + b);
    case "-":
      return new StarFloat(a - b);
    case "*":
      return new StarFloat(a * b);
    case "//":
      if (b === 0) fail("floored division by zero");
      return new StarFloat(Math.floor(a / b));
    default:
      return new StarFloat(floatMod(a, b));
  }
}

function setOp(op: string, x: StarSet, y: StarSet): StarSet {
  const out = new StarSet();
  switch (op) {
    case "|":
      for (const k of x.keys()) out.add(k);
      for (const k of y.keys()) out.add(k);
      break;
    case "&":
      for (const k of x.keys()) if (y.has(k)) out.add(k);
      break;
    case "-":
      for (const k of x.keys()) if (!y.has(k)) out.add(k);
      break;
    default:
      for (const k of x.keys()) if (!y.has(k)) out.add(k);
      for (const k of y.keys()) if (!x.has(k)) out.add(k);
  }
  return out;
}

function contains(container: Value, x: Value): boolean {
  if (container instanceof HashTable) return container.has(x);
  if (container instanceof StarList || container instanceof StarTuple) {
    for (const e of container.elems) if (equals(e, x)) return true;
    return false;
  }
  if (typeof container === "string") {
    if (typeof x !== "string") fail(`'in <string>' requires string as left operand, not ${typeName(x)}`);
    return container.includes(x);
  }
  if (container instanceof Bytes) {
    if (x instanceof Bytes) return container.b.includes(x.b);
    if (isInt(x)) return container.b.includes(String.fromCharCode(Number(x)));
    fail(`'in bytes' requires bytes or int as left operand, not ${typeName(x)}`);
  }
  if (container instanceof StarRange) {
    if (!isInt(x) && !(x instanceof StarFloat))
      fail(`'in <range>' requires integer as left operand, not ${typeName(x)}`);
    const v = Number(x instanceof StarFloat ? x.v : x);
    if (!Number.isInteger(v)) return false;
    const i = (v - container.start) / container.step;
    return Number.isInteger(i) && i >= 0 && i < container.length;
  }
  return fail(`unknown binary op: ${typeName(x)} in ${typeName(container)}`);
}

export function unary(op: string, x: Value): Value {
  switch (op) {
    case "not":
      return !truthOf(x);
    case "-":
      if (typeof x === "number") return x === 0 ? 0 : -x;
      if (typeof x === "bigint") return normInt(-x);
      if (x instanceof StarFloat) return new StarFloat(-x.v);
      break;
    case "+":
      if (isInt(x) || x instanceof StarFloat) return x;
      break;
    case "~":
      if (isInt(x)) return normInt(~toBig(x));
      break;
  }
  return fail(`unknown unary op: ${op}${typeName(x)}`);
}

function truthOf(x: Value): boolean {
  switch (typeof x) {
    case "boolean":
      return x;
    case "number":
      return x !== 0;
    case "bigint":
      return x !== 0n;
    case "string":
      return x.length > 0;
    default:
      return x.truth();
  }
}

/** Length of a sequence or mapping, or -1 if the value has none. */
export function lengthOf(x: Value): number {
  if (typeof x === "string") return x.length;
  if (x instanceof StarList || x instanceof StarTuple) return x.elems.length;
  if (x instanceof HashTable) return x.size;
  if (x instanceof Bytes) return x.b.length;
  if (x instanceof StarRange) return x.length;
  return -1;
}

function outOfRange(i: number, n: number, x: Value): never {
  if (n === 0) fail(`index ${i} out of range: empty ${typeName(x)}`);
  return fail(`${typeName(x)} index ${i} out of range [${-n}:${n - 1}]`);
}

function asIndex(x: Value, y: Value): number {
  if (typeof y === "number") return y;
  if (typeof y === "bigint") return Number(y);
  return fail(`${typeName(x)} index: got ${typeName(y)}, want int`);
}

export function index(x: Value, y: Value): Value {
  if (x instanceof HashTable && x.typeName === "dict") {
    const v = x.get(y);
    if (v === undefined) fail(`key ${repr(y)} not in dict`);
    return v;
  }
  if (x instanceof StarList || x instanceof StarTuple) {
    let i = asIndex(x, y);
    const n = x.elems.length;
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n) outOfRange(orig, n, x);
    return x.elems[i]!; // 0 <= i < n: checked above
  }
  if (typeof x === "string") {
    let i = asIndex(x, y);
    const n = x.length;
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n) outOfRange(orig, n, x);
    return x.charAt(i);
  }
  if (x instanceof Bytes) {
    let i = asIndex(x, y);
    const n = x.b.length;
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n) outOfRange(orig, n, x);
    return x.b.charCodeAt(i);
  }
  if (x instanceof StarRange) {
    let i = asIndex(x, y);
    const n = x.length;
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n) outOfRange(orig, n, x);
    return x.at(i);
  }
  return fail(`unhandled index operation ${typeName(x)}[${typeName(y)}]`);
}

export function setIndex(x: Value, y: Value, v: Value): void {
  if (x instanceof StarDict) {
    x.set(y, v);
    return;
  }
  if (x instanceof StarList) {
    let i = asIndex(x, y);
    x.checkMutable("assign to element of");
    const n = x.elems.length;
    const orig = i;
    if (i < 0) i += n;
    if (i < 0 || i >= n) outOfRange(orig, n, x);
    x.elems[i] = v;
    return;
  }
  fail(`${typeName(x)} value does not support item assignment`);
}

function sliceArg(v: Value | undefined, what: string): number | undefined {
  if (v === undefined || (typeof v === "object" && v.typeName === "NoneType")) return undefined;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  return fail(`invalid ${what} index: got ${typeName(v)}, want int`);
}

/** Indices selected by x[lo:hi:step] for a sequence of length n. */
function sliceIndices(n: number, lo?: Value, hi?: Value, stepV?: Value): number[] {
  const step = sliceArg(stepV, "slice") ?? 1;
  if (step === 0) fail("zero is not a valid slice step");
  let start: number;
  let end: number;
  const l = sliceArg(lo, "start");
  const h = sliceArg(hi, "end");
  if (step > 0) {
    start = l === undefined ? 0 : l < 0 ? Math.max(0, l + n) : Math.min(l, n);
    end = h === undefined ? n : h < 0 ? Math.max(0, h + n) : Math.min(h, n);
  } else {
    start = l === undefined ? n - 1 : l < 0 ? Math.max(-1, l + n) : Math.min(l, n - 1);
    end = h === undefined ? -1 : h < 0 ? Math.max(-1, h + n) : Math.min(h, n - 1);
  }
  const out: number[] = [];
  if (step > 0) for (let i = start; i < end; i += step) out.push(i);
  else for (let i = start; i > end; i += step) out.push(i);
  return out;
}

export function slice(x: Value, lo?: Value, hi?: Value, step?: Value): Value {
  if (typeof x === "string") {
    if (step === undefined) {
      const n = x.length;
      const l = sliceArg(lo, "start");
      const h = sliceArg(hi, "end");
      const a = l === undefined ? 0 : l < 0 ? Math.max(0, l + n) : Math.min(l, n);
      const b = h === undefined ? n : h < 0 ? Math.max(0, h + n) : Math.min(h, n);
      return a < b ? x.slice(a, b) : "";
    }
    return sliceIndices(x.length, lo, hi, step)
      .map((i) => x[i])
      .join("");
  }
  if (x instanceof StarList)
    //  sliceIndices gives indices within the list
    return new StarList(sliceIndices(x.elems.length, lo, hi, step).map((i) => x.elems[i]!));
  if (x instanceof StarTuple)
    //  sliceIndices gives indices within the tuple
    return new StarTuple(sliceIndices(x.elems.length, lo, hi, step).map((i) => x.elems[i]!));
  if (x instanceof Bytes)
    return new Bytes(
      sliceIndices(x.b.length, lo, hi, step)
        .map((i) => x.b[i])
        .join(""),
    );
  if (x instanceof StarRange) {
    const idx = sliceIndices(x.length, lo, hi, step);
    const s = sliceArg(step, "slice") ?? 1;
    if (idx.length === 0) return new StarRange(0, 0, 1);
    const first = x.at(idx[0] ?? 0);
    return new StarRange(first, first + idx.length * x.step * s, x.step * s);
  }
  return fail(`invalid slice operand ${typeName(x)}`);
}

/** Elements of an iterable value (a snapshot), or undefined if the value is not iterable. */
export function elementsOf(x: Value): Value[] | undefined {
  if (x instanceof StarList || x instanceof StarTuple) return x.elems;
  if (x instanceof HashTable) return x.keys();
  if (x instanceof StringIterable) return x.elements();
  if (x instanceof StarRange) {
    const n = x.length;
    const out: number[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = x.at(i);
    return out;
  }
  return undefined;
}

/** An iterable argument of a builtin, failing as Go's Unpack*Args do: `f: for parameter p: got T, want iterable`. */
export function iterArg(fname: string, param: string | number, x: Value): Value[] {
  const e = elementsOf(x);
  if (e === undefined) fail(`${fname}: for parameter ${param}: got ${typeName(x)}, want iterable`);
  return e;
}
