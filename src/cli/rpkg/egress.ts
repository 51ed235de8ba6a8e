import { porchEgress, type UpstreamAccess, upstreamAccess } from "../../porch/egress.js";
import type { EgressPolicy } from "../../sources/egress.js";
import type { RpkgEnv } from "./env.js";

/**
 * The egress policy of rpkg's verbs (the engine's, src/porch/egress.ts): PORCHLIGHT_EGRESS_ALLOW, and the
 * GitHub rpkg serves, allowed on its one endpoint.
 */
export function rpkgEgress(env: Pick<RpkgEnv, "io" | "apiUrl">): EgressPolicy {
  return porchEgress(env.io.env, env.apiUrl);
}

/** How rpkg's clone and upgrade reach an upstream: the egress policy, registry credentials from the environment. */
export function rpkgUpstreams(env: Pick<RpkgEnv, "io" | "apiUrl">): UpstreamAccess {
  return upstreamAccess(env.io.env, env.apiUrl);
}
