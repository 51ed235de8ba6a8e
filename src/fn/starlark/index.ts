export { StarlarkEvalError, StarlarkSyntaxError } from "./errors.js";
export { starlarkFunction } from "./function.js";
export { execFile } from "./interp.js";
export { defaultProgramName, KPT_DIALECT, readConfig, runStarlark } from "./kpt.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";
