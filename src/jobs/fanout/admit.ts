import { DEFAULT_LIMITS, type EffectiveLimits, effectiveLimits } from "../../config/limits.js";
import type { PackageSize } from "../../sources/oci/refused-blobs.js";
import { countExceeded, limitMessage } from "../limits.js";
import type { FanoutContext } from "./context.js";

/** Why an upstream package of this size is refused (the package limits), or undefined when it is taken. */
export type Admit = (size: PackageSize) => string | undefined;

/**
 * The package limits for an upstream package, whatever it is read from (a tag of a git repository, an OCI
 * image, a tarball), checked before anything is built or pushed: the refusal names the upstream, the limit,
 * the figure and the setting that raises it. One check for every kind of upstream, so that a package an
 * image may not bring a git tag may not bring either.
 */
export function admitWithin(source: string, limits: EffectiveLimits): Admit {
  return (size) => {
    const over = countExceeded(size, limits.limits);
    return over && `${limitMessage(source, over, limits)}; nothing was pushed`;
  };
}

/** The package limits a fan-out run reads upstreams and renders downstreams within: its context's, else the defaults. */
export function fanoutLimits(ctx: Pick<FanoutContext, "limits">): EffectiveLimits {
  return ctx.limits ?? effectiveLimits(DEFAULT_LIMITS, {});
}
