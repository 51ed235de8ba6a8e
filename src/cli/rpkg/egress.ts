import { type UpstreamAccess, upstreamAccess } from "../../porch/egress.js";
import type { RpkgEnv } from "./env.js";

/** How rpkg's clone and upgrade reach an upstream: the egress policy, registry credentials from the environment. */
export function rpkgUpstreams(env: Pick<RpkgEnv, "io" | "apiUrl">): UpstreamAccess {
  return upstreamAccess(env.io.env, env.apiUrl);
}
