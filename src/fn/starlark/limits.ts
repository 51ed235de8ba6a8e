import { fail } from "./errors.js";

/** Resource bounds for one script run: a hung or runaway script ends with an error, never a hung bot. */
export interface Limits {
  /** Maximum loop iterations plus function calls (Go starlark counts bytecode steps; we count these). */
  maxSteps: number;
  /** Maximum values and string characters allocated by the script (a bound on memory). */
  maxCells: number;
  /** Maximum call depth. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 10_000_000, maxCells: 50_000_000, maxDepth: 400 };

/** Mutable per-run counters checked against the limits. */
export class Budget {
  steps = 0;
  cells = 0;
  constructor(
    readonly limits: Limits,
    private readonly signal?: AbortSignal,
  ) {}

  step(): void {
    if (++this.steps > this.limits.maxSteps) {
      fail(`Starlark computation cancelled: too many steps (limit ${this.limits.maxSteps})`);
    }
    if ((this.steps & 0xfff) === 0 && this.signal?.aborted) fail("Starlark computation cancelled: aborted");
  }

  charge(cells: number): void {
    this.cells += cells;
    if (this.cells > this.limits.maxCells) {
      fail(`Starlark computation cancelled: memory limit exceeded (limit ${this.limits.maxCells} values)`);
    }
  }
}
