import { formatSource, type OciSource, parseSource } from "../kpt/source-ref.js";
import type { PackageRef } from "./plan-types.js";
import { isOciUpstream, type OciUpstream, type Upstream } from "./schema.js";

/** The source an OCI upstream names (the schema checked it parses). */
export function ociSourceOf(upstream: OciUpstream): OciSource {
  return parseSource(upstream.oci, "spec.upstream.oci") as OciSource;
}

/**
 * What one manifest request resolves: registry, repository and tag (or digest), without the directory.
 * Variants naming the same image share it, so a run asks the registry once per image.
 */
export function ociImageKey(src: OciSource): string {
  return `${src.registry}/${src.repository}${src.digest ? `@${src.digest}` : `:${src.tag ?? "latest"}`}`;
}

/** `sha256:` and the first 12 hex digits: how titles and the dashboard show a digest. */
export function shortDigest(digest: string): string {
  return digest.startsWith("sha256:") ? digest.slice(0, 19) : digest;
}

/** The upstream as the dashboard and pull requests name it: `repo/package`, or the oci:// reference. */
export function upstreamLabel(upstream: Upstream): string {
  return isOciUpstream(upstream)
    ? formatSource(ociSourceOf(upstream))
    : `${upstream.repo}/${upstream.package}`;
}

/** The image (and directory) an OCI upstream names, without tag or digest. */
export function ociImageName(upstream: OciUpstream): string {
  const src = ociSourceOf(upstream);
  const dir = src.directory === "/" ? "" : `/${src.directory}`;
  return `oci://${src.registry}/${src.repository}${dir}`;
}

/** What the upstream follows: the revision or channel of a git package, the tag or digest of an image. */
export function upstreamVersion(upstream: Upstream): string {
  if (!isOciUpstream(upstream)) return upstream.channel ?? upstream.revision ?? "";
  const src = ociSourceOf(upstream);
  return src.digest ? shortDigest(src.digest) : (src.tag ?? "latest");
}

/** An OCI upstream as a package reference: the image repository and the directory inside it. */
export function ociPackageRef(src: OciSource): PackageRef {
  return { repo: `oci://${src.registry}/${src.repository}`, package: src.directory.replace(/^\/+/, "") };
}
