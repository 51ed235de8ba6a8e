import type { Runtime } from "../config/schema.js";

/**
 * The function runtimes the workflow's author allows, from the step's environment: builtins always;
 * exec functions with `PORCHLIGHT_ALLOW_EXEC=1`, container functions with `PORCHLIGHT_ALLOW_CONTAINER=1`.
 * On Actions the workflow author is the app's operator: a repository's `.github/porchlight.yml` can
 * narrow this, never widen it.
 */
export function operatorRuntimesFromEnv(env: NodeJS.ProcessEnv): Runtime[] {
  const on = (name: string) => /^(1|true|yes)$/i.test(env[name]?.trim() ?? "");
  const runtimes: Runtime[] = ["builtin"];
  if (on("PORCHLIGHT_ALLOW_EXEC")) runtimes.push("exec");
  if (on("PORCHLIGHT_ALLOW_CONTAINER")) runtimes.push("container");
  return runtimes;
}
