import type { Value } from "./core.js";
import { StarObject } from "./core.js";

/** Keyword arguments as passed to callables: name/value pairs in call order. */
export type Kwargs = [string, Value][];

/** Anything a Starlark call expression may call. */
export abstract class Callable extends StarObject {
  abstract readonly name: string;
}

/** What a builtin gets besides its arguments. */
export interface CallContext {
  /** Calls any callable (used by sorted(key=...), etc.). */
  call(fn: Value, args: Value[], kwargs?: Kwargs): Value;
  /** Charges the step and memory budgets. */
  charge(steps: number, cells?: number): void;
  print(msg: string): void;
  load?(module: string): Map<string, Value>;
}

export type BuiltinImpl = (ctx: CallContext, args: Value[], kwargs: Kwargs, self: Builtin) => Value;

/** A function or method implemented in TypeScript. `recv` is the receiver of a bound method. */
export class Builtin extends Callable {
  readonly typeName = "builtin_function_or_method";
  constructor(
    readonly name: string,
    readonly impl: BuiltinImpl,
    readonly recv?: Value,
  ) {
    super();
  }
}

/** A struct-like value with named fields: kpt's `ctx`, and loaded modules. */
export class Struct extends StarObject {
  constructor(
    readonly typeName: string,
    readonly name: string,
    readonly fields: Map<string, Value>,
  ) {
    super();
  }
  override freeze(): void {
    for (const v of this.fields.values()) if (typeof v === "object") v.freeze();
  }
}
