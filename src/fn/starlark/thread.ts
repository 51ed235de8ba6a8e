import type { FunctionDef, Pos } from "./ast.js";
import { fail } from "./errors.js";
import { Budget, DEFAULT_LIMITS, type Limits } from "./limits.js";
import type { DialectOptions } from "./resolve.js";
import { fromBytes } from "./utf8.js";
import type { CallContext, Kwargs } from "./values/callable.js";
import type { Value } from "./values/core.js";

/** Calls a callable value; installed by the evaluator (breaks the import cycle values ↔ eval). */
export type Caller = (thread: Thread, fn: Value, args: Value[], kwargs: Kwargs) => Value;

export interface ThreadOptions {
  /** Script name used in error positions (kpt: the function config's metadata.name). */
  name?: string;
  dialect?: DialectOptions;
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  print?: (msg: string) => void;
  /** Module loader for `load("x.star", ...)`. */
  load?: (module: string) => Map<string, Value>;
}

/** The state of one script execution: budgets, call depth, active functions, print and load hooks. */
export class Thread implements CallContext {
  readonly budget: Budget;
  readonly dialect: DialectOptions;
  depth = 0;
  /**
   * Position of the operation being executed (Go's program counter, as a source position): set before
   * each operation that can fail, read when an error leaves a function to place it in the backtrace.
   */
  pos: Pos | undefined;
  /** Functions currently on the stack (for the no-recursion rule of Go's default dialect). */
  readonly active = new Set<FunctionDef>();
  caller!: Caller;

  constructor(readonly opts: ThreadOptions = {}) {
    this.budget = new Budget({ ...DEFAULT_LIMITS, ...opts.limits }, opts.signal);
    this.dialect = opts.dialect ?? {};
  }

  call(fn: Value, args: Value[], kwargs: Kwargs = []): Value {
    return this.caller(this, fn, args, kwargs);
  }

  charge(steps: number, cells = 0): void {
    for (let i = 0; i < steps; i++) this.budget.step();
    if (cells) this.budget.charge(cells);
  }

  print(msg: string): void {
    this.opts.print?.(fromBytes(msg));
  }

  load(module: string): Map<string, Value> {
    if (!this.opts.load) fail(`cannot load ${module}: load not implemented by this application`);
    return this.opts.load(module);
  }
}
