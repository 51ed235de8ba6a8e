import type { BuiltinFunction, FunctionContext, ResourceList } from "../types.js";
import { runStarlark } from "./kpt.js";

export { StarlarkEvalError, StarlarkSyntaxError } from "./errors.js";
export { execFile } from "./interp.js";
export { KPT_DIALECT, readConfig, runStarlark } from "./kpt.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";

/** kpt's `starlark` catalog function (image `gcr.io/kpt-fn/starlark`, any tag), run in-process. */
export const starlarkFunction: BuiltinFunction = {
  name: "starlark",
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    return runStarlark(input, { signal: ctx.signal });
  },
};
