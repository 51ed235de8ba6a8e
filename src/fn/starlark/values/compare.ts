import { fail } from "../errors.js";
import { Struct } from "./callable.js";
import { Bytes, StarFloat, typeName, type Value } from "./core.js";
import { HashTable } from "./dict.js";
import { StarList, StarRange, StarTuple } from "./list.js";

function num(v: Value): number | bigint | undefined {
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (v instanceof StarFloat) return v.v;
  return undefined;
}

function numCmp(a: number | bigint, b: number | bigint): number {
  if (typeof a === "number" && Number.isNaN(a)) return typeof b === "number" && Number.isNaN(b) ? 0 : 1;
  if (typeof b === "number" && Number.isNaN(b)) return -1;
  if (typeof a !== typeof b) {
    // bigint vs float: compare exactly where the float is integral
    if (typeof a === "number" && !Number.isInteger(a)) return a < Number(b) ? -1 : 1;
    if (typeof b === "number" && !Number.isInteger(b)) return Number(a) < b ? -1 : 1;
    if (typeof a === "number" && !Number.isFinite(a)) return a < 0 ? -1 : 1;
    if (typeof b === "number" && !Number.isFinite(b)) return b < 0 ? 1 : -1;
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Starlark equality (==). */
export function equals(x: Value, y: Value, depth = 0): boolean {
  // Identical containers are still compared element-wise, as Go does (a cyclic list exceeds the depth).
  if (x === y && !(x instanceof StarList || x instanceof StarTuple || x instanceof HashTable)) return true;
  const tx = typeof x;
  if (tx === "string" || tx === "boolean") return false;
  const nx = num(x);
  if (nx !== undefined) {
    const ny = num(y);
    // floats are totally ordered, as in Go: NaN equals NaN and is above +inf
    return ny !== undefined && numCmp(nx, ny) === 0;
  }
  if (typeof x !== "object" || typeof y !== "object") return false;
  if (depth > 100) fail("comparison exceeded maximum recursion depth");
  if (x instanceof StarList && y instanceof StarList) return seqEq(x.elems, y.elems, depth);
  if (x instanceof StarTuple && y instanceof StarTuple) return seqEq(x.elems, y.elems, depth);
  if (x instanceof Bytes && y instanceof Bytes) return x.b === y.b;
  if (x instanceof StarRange && y instanceof StarRange) {
    const n = x.length;
    return n === y.length && (n === 0 || (x.start === y.start && (n === 1 || x.step === y.step)));
  }
  if (x instanceof HashTable && y instanceof HashTable && x.typeName === y.typeName) {
    if (x.size !== y.size) return false;
    for (const [k, e] of x.map) {
      const f = y.map.get(k);
      if (!f || !equals(e.v, f.v, depth + 1)) return false;
    }
    return true;
  }
  if (x instanceof Struct && y instanceof Struct && x.typeName === "struct" && y.typeName === "struct") {
    if (x.fields.size !== y.fields.size) return false;
    for (const [k, v] of x.fields) {
      const w = y.fields.get(k);
      if (w === undefined || !equals(v, w, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

function seqEq(a: Value[], b: Value[], depth: number): boolean {
  if (a.length !== b.length) return false;
  //  a and b have the same length: checked above
  for (let i = 0; i < a.length; i++) if (!equals(a[i]!, b[i]!, depth + 1)) return false;
  return true;
}

/** Three-way ordering for <, <=, >, >=; fails as Go does for types without an order. */
export function compare(op: string, x: Value, y: Value, depth = 0): number {
  const nx = num(x);
  const ny = num(y);
  if (nx !== undefined && ny !== undefined) return numCmp(nx, ny);
  if (typeof x === "string" && typeof y === "string") return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === "boolean" && typeof y === "boolean") return Number(x) - Number(y);
  if (depth > 100) fail("comparison exceeded maximum recursion depth");
  if (
    (x instanceof StarList && y instanceof StarList) ||
    (x instanceof StarTuple && y instanceof StarTuple)
  ) {
    const a = x.elems;
    const b = y.elems;
    for (let i = 0; i < a.length && i < b.length; i++) {
      //  i is below both lengths
      if (!equals(a[i]!, b[i]!, depth + 1)) return compare(op, a[i]!, b[i]!, depth + 1);
    }
    return a.length - b.length;
  }
  if (x instanceof Bytes && y instanceof Bytes) return x.b < y.b ? -1 : x.b > y.b ? 1 : 0;
  return fail(`${typeName(x)} ${op} ${typeName(y)} not implemented`);
}

export function compareOp(op: string, x: Value, y: Value): boolean {
  switch (op) {
    case "==":
      return equals(x, y);
    case "!=":
      return !equals(x, y);
  }
  const c = compare(op, x, y);
  switch (op) {
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    default:
      return c >= 0;
  }
}
