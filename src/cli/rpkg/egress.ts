import { PorchError } from "../../porch/errors.js";
import { type EgressPolicy, EgressRefused, egressPolicyFromEnv, endpointOf } from "../../sources/egress.js";
import type { RpkgEnv } from "./env.js";

/**
 * The egress policy of rpkg's verbs, which Porch's API server runs on its callers' behalf: what a clone or
 * an upgrade names is fetched by the machine rpkg runs on, so it keeps to the app's one policy
 * (src/sources/egress.ts): PORCHLIGHT_EGRESS_ALLOW, and the GitHub rpkg serves (GitHub Enterprise, the
 * embedded forge), allowed on its one endpoint because it is configured — not because of its address.
 */
export function rpkgEgress(env: Pick<RpkgEnv, "io" | "apiUrl">): EgressPolicy {
  return egressPolicyFromEnv(env.io.env, env.apiUrl ? [endpointOf(env.apiUrl)] : []);
}

/** `run`, a refusal of the egress policy as rpkg's failure (exit 1; through the API, a 400 naming it). */
export async function withinEgress<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof EgressRefused)
      throw new PorchError(
        "bad-request",
        e.message,
        "a clone or an upgrade reads its upstream over https from a public address, the GitHub rpkg serves, or a host the operator allows (PORCHLIGHT_EGRESS_ALLOW)",
      );
    throw e;
  }
}
