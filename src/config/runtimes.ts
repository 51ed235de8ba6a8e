import { RUNTIMES, type Runtime } from "./schema.js";

export interface EffectiveRuntimes {
  /** The runtimes functions of this repository may use, in the order builtin, exec, container. */
  allowed: Runtime[];
  /** What the repository asked for but the app's operator does not allow: worth a warning, never granted. */
  refused: Runtime[];
}

/**
 * A repository can narrow the runtimes the app's operator allows, never widen them: exec and container
 * functions run code from outside, so only the operator (in the app's own environment) can turn them on.
 * With no request, the repository gets what the operator allows.
 */
export function effectiveRuntimes(
  operatorAllowed: readonly Runtime[],
  repoRequested: readonly Runtime[] | undefined,
): EffectiveRuntimes {
  const requested = repoRequested ?? operatorAllowed;
  return {
    allowed: RUNTIMES.filter((r) => requested.includes(r) && operatorAllowed.includes(r)),
    refused: RUNTIMES.filter((r) => requested.includes(r) && !operatorAllowed.includes(r)),
  };
}
