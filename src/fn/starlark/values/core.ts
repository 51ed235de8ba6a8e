/**
 * Starlark values. Small values are JS primitives: bool is `boolean`, int is an integral `number` (or a
 * `bigint` outside the safe-integer range), string is `string`. Everything else is a StarObject.
 */
export abstract class StarObject {
  abstract readonly typeName: string;
  /** Makes the value and everything reachable from it immutable (Go's Freeze). */
  freeze(): void {}
  truth(): boolean {
    return true;
  }
}

export type Value = boolean | number | bigint | string | StarObject;

class NoneType extends StarObject {
  readonly typeName = "NoneType";
  override truth(): boolean {
    return false;
  }
}
export const None = new NoneType();

/** A float (ints are plain numbers, so floats are boxed to keep the two apart). */
export class StarFloat extends StarObject {
  readonly typeName = "float";
  constructor(readonly v: number) {
    super();
  }
  override truth(): boolean {
    return this.v !== 0;
  }
}

/** An immutable byte string; bytes are kept as a latin1 JS string (one char per byte). */
export class Bytes extends StarObject {
  readonly typeName = "bytes";
  constructor(readonly b: string) {
    super();
  }
  override truth(): boolean {
    return this.b.length > 0;
  }
}

export function typeName(v: Value): string {
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "number":
    case "bigint":
      return "int";
    case "string":
      return "string";
    default:
      return v.typeName;
  }
}

export function truth(v: Value): boolean {
  switch (typeof v) {
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "bigint":
      return v !== 0n;
    case "string":
      return v.length > 0;
    default:
      return v.truth();
  }
}

export function isInt(v: Value): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const MIN = BigInt(Number.MIN_SAFE_INTEGER);

/** Returns the canonical representation of an int: a number when it is a safe integer. */
export function normInt(b: bigint): number | bigint {
  return b >= MIN && b <= MAX ? Number(b) : b;
}

export function toBig(v: number | bigint): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}
