import type { FunctionDef } from "../ast.js";
import { Callable } from "./callable.js";
import type { Value } from "./core.js";

/** A captured variable shared between a function and its closures. */
export class Cell {
  constructor(public v: Value | undefined) {}
}

/** An activation record of a Starlark function (or of the module's top-level code). */
export interface Frame {
  locals: (Value | Cell | undefined)[];
  free: Cell[];
  ret: Value | undefined;
}

/** Compiled statement: returns 0 (normal), 1 (break), 2 (continue) or 3 (return). */
export type Exec = (fr: Frame) => number;

/** A function defined in Starlark by def or lambda. */
export class StarFunction extends Callable {
  readonly typeName = "function";
  constructor(
    readonly def: FunctionDef,
    readonly body: Exec,
    readonly defaults: (Value | undefined)[],
    readonly free: Cell[],
    readonly file: string,
  ) {
    super();
  }
  get name(): string {
    return this.def.name;
  }
}
