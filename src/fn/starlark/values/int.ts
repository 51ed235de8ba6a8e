import { fail } from "../errors.js";
import { normInt, toBig } from "./core.js";

type Int = number | bigint;

export function intAdd(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(toBig(a) + toBig(b));
}

export function intSub(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(toBig(a) - toBig(b));
}

export function intMul(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  return normInt(toBig(a) * toBig(b));
}

export function intFloorDiv(a: Int, b: Int): Int {
  if (b === 0 || b === 0n) fail("floored division by zero");
  if (typeof a === "number" && typeof b === "number" && Math.abs(a) < 2 ** 31 && Math.abs(b) < 2 ** 31) {
    const q = Math.floor(a / b);
    return q === 0 ? 0 : q;
  }
  const x = toBig(a);
  const y = toBig(b);
  let q = x / y;
  if (x % y !== 0n && x < 0n !== y < 0n) q -= 1n;
  return normInt(q);
}

export function intMod(a: Int, b: Int): Int {
  if (b === 0 || b === 0n) fail("integer modulo by zero");
  if (typeof a === "number" && typeof b === "number") {
    let r = a % b;
    if (r !== 0 && r < 0 !== b < 0) r += b;
    return r === 0 ? 0 : r;
  }
  const x = toBig(a);
  const y = toBig(b);
  let r = x % y;
  if (r !== 0n && r < 0n !== y < 0n) r += y;
  return normInt(r);
}

export function intBitop(op: string, a: Int, b: Int): Int {
  const x = toBig(a);
  const y = toBig(b);
  switch (op) {
    case "&":
      return normInt(x & y);
    case "|":
      return normInt(x | y);
    case "^":
      return normInt(x ^ y);
    case "<<":
      if (y < 0n) fail(`negative shift count: ${y}`);
      if (y >= 512n) fail(`shift count too large: ${y}`);
      return normInt(x << y);
    default:
      if (y < 0n) fail(`negative shift count: ${y}`);
      return normInt(x >> y);
  }
}

export function intToFloat(a: Int): number {
  return typeof a === "number" ? a : Number(a);
}
