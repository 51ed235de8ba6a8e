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

/**
 * The runtimes the app's operator allows, from the app's own environment (never from a repository):
 * builtins always; exec functions with `PORCHLIGHT_ALLOW_EXEC=1`, container functions with
 * `PORCHLIGHT_ALLOW_CONTAINER=1`. The hosted app and the Action read the same names.
 */
export function operatorRuntimesFromEnv(env: NodeJS.ProcessEnv): Runtime[] {
  const on = (name: string) => /^(1|true|yes)$/i.test(env[name]?.trim() ?? "");
  const runtimes: Runtime[] = ["builtin"];
  if (on("PORCHLIGHT_ALLOW_EXEC")) runtimes.push("exec");
  if (on("PORCHLIGHT_ALLOW_CONTAINER")) runtimes.push("container");
  return runtimes;
}
