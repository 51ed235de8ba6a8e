import type { FunctionRegistry, RuntimeHints } from "../function-registry.js";
import type { ResourceList, Untouched } from "../types.js";
import { FunctionError } from "../types.js";
import type { FunctionRunner, FunctionSpec, RunOptions, RunOutput } from "./types.js";

/**
 * Runs builtin functions in-process. A builtin fails as a catalog function's container would: by
 * throwing a FunctionError, or by returning results with severity "error".
 */
export class BuiltinRunner implements FunctionRunner {
  readonly kind = "builtin";

  constructor(
    private readonly registry: FunctionRegistry,
    private readonly hints: RuntimeHints = {},
  ) {}

  async run(fn: FunctionSpec, input: ResourceList, options: RunOptions): Promise<RunOutput> {
    if (!fn.image) throw new FunctionError("builtin runner called without an image");
    const { fn: builtin, release } = this.registry.resolve(fn.image, this.hints);
    // Asked before the run: the function may change its input, config included.
    const untouched = builtin.untouched?.(
      input.functionConfig,
      release !== "unversioned" ? release : undefined,
    );
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new FunctionError(`function "${fn.image}" did not finish within ${options.timeoutMs / 1000}s`),
        );
      }, options.timeoutMs);
    });
    try {
      const output = await Promise.race([
        Promise.resolve(
          builtin.run(input, {
            signal: controller.signal,
            ...(release !== "unversioned" ? { release } : {}),
          }),
        ),
        timeout,
      ]);
      const errors = output.results.filter((r) => r.severity === "error");
      if (errors.length > 0 && output.exitCode !== 0) {
        throw new FunctionError(`function "${fn.image}" reported ${errors.length} error(s)`, output.results);
      }
      const shown = output.untouched;
      if (!untouched && !shown) return output;
      return { ...output, untouched: bothPromises(untouched ?? {}, shown ?? {}) };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** What the promise before a run and the run's own showing leave untouched together. */
function bothPromises(before: Untouched, shown: Untouched): Untouched {
  const out: Untouched = {};
  if (before.folded || shown.folded) out.folded = true;
  if (before.fileAnnotations || shown.fileAnnotations) out.fileAnnotations = true;
  return out;
}
