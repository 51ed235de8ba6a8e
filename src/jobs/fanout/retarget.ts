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

export function parseRetarget(body: string | null | undefined): Retarget | undefined {
  const m = MARKER_RE.exec(body ?? "");
  if (!m) return undefined;
  try {
    const data = JSON.parse(m[1] as string) as { revision?: unknown; channel?: unknown };
    if (typeof data.revision === "string" && /^v[1-9][0-9]*$/.test(data.revision))
      return { revision: data.revision };
    if (typeof data.channel === "string" && data.channel !== "") return { channel: data.channel };
  } catch {
    return undefined;
  }
  return undefined;
}

/** The variant as fan-out follows it while a retarget holds: the same, with its upstream revision or channel replaced. */
export function retargeted(variant: PackageVariant, r: Retarget): PackageVariant {
  if (isSourceUpstream(variant.spec.upstream)) return variant;
  const { revision: _r, channel: _c, ...upstream } = variant.spec.upstream;
  return { ...variant, spec: { ...variant.spec, upstream: { ...upstream, ...r } } };
}

/** Appends the marker to a body (replacing an older one). */
export function withRetarget(body: string, r: Retarget | undefined): string {
  const clean = body.replace(MARKER_RE, "").replace(/\n+$/, "\n");
  return r ? `${clean}${formatRetargetMarker(r)}\n` : clean;
}
