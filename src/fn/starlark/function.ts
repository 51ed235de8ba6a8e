import { catalogReleases } from "../releases.js";
import type { BuiltinFunction, FunctionContext, ResourceList } from "../types.js";

/**
 * kpt's `starlark` catalog function (image `gcr.io/kpt-fn/starlark`), run in-process for the releases
 * v0.2.0 … v0.5.1: a Starlark interpreter in the go.starlark.net dialect the release builds with. What
 * changed between releases (switches in kpt.ts, each naming its tag):
 * - v0.2.x: Go's default dialect (no set, no while/recursion, no global reassignment) and no load();
 *   config messages of kyaml's framework (`source` in `StarlarkRun` must not be empty, …); a failure
 *   writes `[error] : <message>` to stderr;
 * - v0.3.0: the dialect above enabled, and load() of the starlib modules;
 * - v0.4.0: the functions SDK: `source` must not be empty; a failure writes `failed to evaluate function:
 *   error: function failure` to stderr; v0.4.1 adds the krmfn module; v0.4.3 names a missing config;
 * - v0.5.1: config matched by group and kind, default script name `starlark-function-run`.
 * print() output is the function's stderr in every release (kpt shows it under "Stderr:").
 * v0.1.x (kyaml's comment-copying Filter, which drops StarlarkRun items and writes results in kyaml's
 * pre-v1 shape) is not reproduced.
 * Where it differs from the container, on purpose:
 * - ctx.open_api is unavailable and ctx.environment is empty (no OpenAPI schema shipped; the bot's
 *   environment never reaches a script);
 * - dicts made from YAML iterate in the file's key order (the catalog's go-map conversion iterates in
 *   random order);
 * - a step and a memory budget bound every run (Limits), and only deterministic modules load: json, base64,
 *   yaml, hash, math, krmfn.
 * Output resources are what kpt writes after the container: comments and key order kept, styles reset.
 *
 * The interpreter (some fifty modules) loads when a pipeline first runs the function, not when a
 * porchlight process starts.
 */
export const starlarkFunction: BuiltinFunction = {
  name: "starlark",
  releases: catalogReleases("starlark", "v0.2.0"),
  async run(input: ResourceList, ctx: FunctionContext): Promise<ResourceList> {
    const { runStarlark } = await import("./kpt.js");
    return runStarlark(input, { signal: ctx.signal, ...(ctx.release ? { release: ctx.release } : {}) });
  },
};
