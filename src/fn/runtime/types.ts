import type { ResourceList, Untouched } from "../types.js";

/** Which function a pipeline step runs: a Kptfile `image:` or `exec:` (exactly one is set). */
export interface FunctionSpec {
  image?: string;
  exec?: string;
}

/** The runtimes a function can run in. */
export type RuntimeKind = "builtin" | "exec" | "container";

/** Limits and cancellation for one run of a function. */
export interface RunOptions {
  /** The run fails with a FunctionError when it takes longer. */
  timeoutMs: number;
  /** The run fails when the function writes more than this to its output (stdout, or the serialised list). */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = {
  timeoutMs: 5 * 60_000,
  maxOutputBytes: 256 * 1024 * 1024,
};

/**
 * Runs one function over a ResourceList. The input may be changed in place; use the returned list.
 * A failing function throws FunctionError (its message and results are shown to the user); results
 * with severity "error" in the returned list also mean failure, which the caller decides.
 */
export interface FunctionRunner {
  readonly kind: RuntimeKind;
  run(fn: FunctionSpec, input: ResourceList, options: RunOptions): Promise<RunOutput>;
}

/** A function's output list, and what a function process wrote to stderr while it passed. */
export interface RunOutput extends ResourceList {
  stderr?: string;
  /** What the builtin that ran promised to leave as it was (BuiltinFunction.untouched). */
  untouched?: Untouched;
}
