import { catalogReleases } from "../releases.js";
import type { BuiltinFunction, FunctionContext, ResourceList } from "../types.js";
import { runStarlark } from "./kpt.js";

export { StarlarkEvalError, StarlarkSyntaxError } from "./errors.js";
export { execFile } from "./interp.js";
export { KPT_DIALECT, readConfig, runStarlark } from "./kpt.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";

/**
 * kpt's `starlark` catalog function (image `gcr.io/kpt-fn/starlark`, any tag), run in-process: a Starlark
 * interpreter in the go.starlark.net dialect the catalog builds with (set, while/recursion and top-level
 * statements enabled). Where it differs from the container, on purpose:
 * - print() output becomes info results (the container writes it to stderr, which kpt shows as
 *   "Stderr:" and records in results.yaml; a builtin has no stderr);
 * - ctx.open_api is unavailable and ctx.environment is empty (no OpenAPI schema shipped; the bot's
 *   environment never reaches a script);
 * - dicts made from YAML iterate in the file's key order (the catalog's go-map conversion iterates in
 *   random order);
 * - a step and a memory budget bound every run (Limits), and only deterministic modules load: json, base64,
 *   yaml, hash, math, krmfn.
 * Output resources are what kpt writes after the container: comments and key order kept, styles reset.
 */
export const starlarkFunction: BuiltinFunction = {
  name: "starlark",
  releases: catalogReleases("starlark", "v0.1.0"),
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    return runStarlark(input, { signal: ctx.signal });
  },
};
