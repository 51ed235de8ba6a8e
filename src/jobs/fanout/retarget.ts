import { z } from "zod";
import { isSourceUpstream, type PackageVariant } from "../../variants/index.js";

/**
 * `/update <revision|channel>` on a fan-out pull request retargets it: the pull request proposes that
 * revision instead of the one its variant names, until it is merged or closed. The choice lives in the
 * pull request body, as a hidden marker that fan-out keeps when it rewrites the body.
 */
export type Retarget = { revision: string } | { channel: string };

const MARKER_RE = /<!-- porchlight:retarget (\{[^>]*?\}) -->/;

function formatRetargetMarker(r: Retarget): string {
  return `<!-- porchlight:retarget ${JSON.stringify(r)} -->`;
}

/** The marker as read back from a pull request body (people edit it): a bad field is as good as absent. */
const retargetSchema = z.object({
  revision: z
    .string()
    .regex(/^v[1-9][0-9]*$/)
    .optional()
    .catch(undefined),
  channel: z.string().min(1).optional().catch(undefined),
});

export function parseRetarget(body: string | null | undefined): Retarget | undefined {
  const json = MARKER_RE.exec(body ?? "")?.[1];
  if (json === undefined) return undefined;
  try {
    const { revision, channel } = retargetSchema.parse(JSON.parse(json));
    if (revision !== undefined) return { revision };
    if (channel !== undefined) return { channel };
  } catch {
    return undefined;
  }
  return undefined;
}

/** The variant as fan-out follows it while a retarget holds: the same, with its upstream revision or channel replaced. */
export function retargeted(variant: PackageVariant, r: Retarget): PackageVariant {
  if (isSourceUpstream(variant.spec.upstream)) return variant;
  const { revision: _r, channel: _c, workspaceName: _w, ...upstream } = variant.spec.upstream;
  return { ...variant, spec: { ...variant.spec, upstream: { ...upstream, ...r } } };
}

/** Appends the marker to a body (replacing an older one). */
export function withRetarget(body: string, r: Retarget | undefined): string {
  const clean = body.replace(MARKER_RE, "").replace(/\n+$/, "\n");
  return r ? `${clean}${formatRetargetMarker(r)}\n` : clean;
}
