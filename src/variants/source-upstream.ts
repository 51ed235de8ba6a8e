import { formatSource, type PackageSource, parseSource, sourceRepo } from "../kpt/source-ref.js";
import type { PackageRef } from "./plan-types.js";
import type { SourceUpstream, Upstream } from "./schema.js";
import { isSourceUpstream } from "./schema.js";

/** The source an OCI or tarball upstream names (the schema checked it parses). */
export function sourceOf(upstream: SourceUpstream): PackageSource {
  return "oci" in upstream
    ? parseSource(upstream.oci, "spec.upstream.oci")
    : parseSource(upstream.tarball, "spec.upstream.tarball");
}

/** The reference as the variant declares it: `oci://…` or the tarball URL. */
export function declaredSource(upstream: SourceUpstream): string {
  return "oci" in upstream ? upstream.oci : upstream.tarball;
}

/**
 * What one request resolves: for an image its registry, repository and tag (or digest), for a tarball its
 * URL (and pin), without the directory. Variants naming the same image or archive share it, so a run asks
 * once per image or archive.
 */
export function sourceKey(src: PackageSource): string {
  if (src.kind === "https") return `${src.url}${src.digest ? `#${src.digest}` : ""}`;
  return `${src.registry}/${src.repository}${src.digest ? `@${src.digest}` : `:${src.tag ?? "latest"}`}`;
}

/** `sha256:` and the first 12 hex digits: how titles and the dashboard show a digest. */
export function shortDigest(digest: string): string {
  return digest.startsWith("sha256:") ? digest.slice(0, 19) : digest;
}

/** The upstream as the dashboard and pull requests name it: `repo/package`, or the oci:// or https:// reference. */
export function upstreamLabel(upstream: Upstream): string {
  return isSourceUpstream(upstream)
    ? formatSource(sourceOf(upstream))
    : `${upstream.repo}/${upstream.package}`;
}

/** The image or archive (and directory) a source upstream names, without tag, digest or pin. */
export function sourceName(upstream: SourceUpstream): string {
  const src = sourceOf(upstream);
  const dir = src.directory === "/" ? "" : `/${src.directory}`;
  return `${sourceRepo(src)}${dir}`;
}

/**
 * What the upstream follows: the revision, workspace or channel of a git package (`latest` with none), the tag or digest of an image, the
 * pin of a tarball (`latest` when unpinned: whatever the URL serves now).
 */
export function upstreamVersion(upstream: Upstream): string {
  if (!isSourceUpstream(upstream))
    return upstream.channel ?? upstream.revision ?? upstream.workspaceName ?? "latest";
  const src = sourceOf(upstream);
  if (src.digest) return shortDigest(src.digest);
  return src.kind === "oci" ? (src.tag ?? "latest") : "latest";
}

/** A source upstream as a package reference: the image repository or archive URL, and the directory inside it. */
export function sourcePackageRef(src: PackageSource): PackageRef {
  return { repo: sourceRepo(src), package: src.directory.replace(/^\/+/, "") };
}
