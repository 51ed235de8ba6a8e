/**
 * Where a package comes from when it is not a git repository, as a user types it and as a Kptfile
 * records it (pure: parsing and formatting only; src/sources fetches).
 *
 * - `oci://REGISTRY/REPO[//DIR][:TAG|@sha256:HEX]` — kpt's OCI design: the package is the image's
 *   (or artifact's) content, `//DIR` a directory inside it; no tag means `latest`.
 * - `https://HOST/PATH.tar.gz[//DIR][#sha256=HEX]` (also `.tgz`, `.tar`) — a tarball, optionally
 *   pinned to the sha256 of its bytes. `http://` is accepted for loopback hosts only.
 */

/**
 * Where a Kptfile records a package fetched from OCI or a tarball (kpt v1 decodes `upstream` strictly
 * and knows no `upstream.oci`): the source as asked, and the same at the digest it resolved to.
 */
export const UPSTREAM_ANNOTATION = "porchlight.dev/upstream";
export const UPSTREAM_LOCK_ANNOTATION = "porchlight.dev/upstream-lock";

export interface OciSource {
  kind: "oci";
  registry: string;
  repository: string;
  /** Directory inside the image, with a leading slash ("/" for the root). */
  directory: string;
  tag?: string;
  /** `sha256:<64 hex>` */
  digest?: string;
}

export interface TarballSource {
  kind: "https";
  /** The archive's URL (no `//DIR`, no `#sha256=`). */
  url: string;
  directory: string;
  /** `sha256:<64 hex>`: the archive's bytes must hash to it. */
  digest?: string;
}

export type PackageSource = OciSource | TarballSource;

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const TAG = /^\w[\w.-]{0,127}$/;
const REPO_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const REPOSITORY = new RegExp(`^${REPO_COMPONENT}(?:/${REPO_COMPONENT})*$`);
const TARBALL = /\.(?:tar\.gz|tgz|tar)$/;

export function isDigest(s: string): boolean {
  return DIGEST.test(s);
}

/** True for a host Docker speaks plain HTTP to: localhost and loopback addresses, with any port. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Which kind of non-git source `s` names, or undefined for a git repository (or a path). */
export function sourceKind(s: string): PackageSource["kind"] | undefined {
  if (/^oci:\/\//i.test(s)) return "oci";
  if (/^https?:\/\//i.test(s)) {
    const path = s.replace(/#.*$/, "").replace(/\?.*$/, "");
    const archive = path.replace(/^https?:\/\/[^/]*/i, "").split("//")[0] ?? "";
    if (TARBALL.test(archive)) return "https";
  }
  return undefined;
}

/** A source string that does not parse; the message names where it was read and the expected form. */
export class SourceRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceRefError";
  }
}

function bad(s: string, what: string, why: string): SourceRefError {
  return new SourceRefError(`${what}: "${s}" is not a package source: ${why}`);
}

/** Parses an `oci://` or tarball source; `what` names where it was read, for messages. */
export function parseSource(s: string, what = "source"): PackageSource {
  const kind = sourceKind(s);
  if (kind === "oci") return parseOci(s, what);
  if (kind === "https") return parseTarball(s, what);
  throw bad(s, what, "expected oci://REGISTRY/REPO[//DIR]:TAG or https://HOST/PATH.tar.gz");
}

function parseOci(s: string, what: string): OciSource {
  let rest = s.slice("oci://".length);
  let tag: string | undefined;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isDigest(digest))
      throw bad(s, what, `the digest "${digest}" is not sha256:<64 lowercase hex digits>`);
  } else {
    const colon = rest.lastIndexOf(":");
    if (colon > rest.lastIndexOf("/")) {
      tag = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
      if (!TAG.test(tag)) throw bad(s, what, `the tag "${tag}" is not a valid tag (letters, digits, _ . -)`);
    }
  }
  const [name = "", ...dirParts] = rest.split("//");
  const slash = name.indexOf("/");
  if (slash <= 0) throw bad(s, what, "name a registry and a repository: oci://REGISTRY/REPO:TAG");
  const registry = name.slice(0, slash);
  const repository = name.slice(slash + 1);
  if (!REPOSITORY.test(repository)) {
    throw bad(
      s,
      what,
      `the repository "${repository}" must be lowercase letters, digits and . _ - separated by /`,
    );
  }
  const directory = `/${dirParts.join("/").replace(/^\/+|\/+$/g, "")}`;
  return {
    kind: "oci",
    registry,
    repository,
    directory,
    ...(tag ? { tag } : {}),
    ...(digest ? { digest } : {}),
  };
}

function parseTarball(s: string, what: string): TarballSource {
  let rest = s;
  let digest: string | undefined;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    const fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    const m = /^sha256[=:]([0-9a-f]{64})$/.exec(fragment);
    if (!m) throw bad(s, what, `the fragment "#${fragment}" must be #sha256=<64 lowercase hex digits>`);
    digest = `sha256:${m[1]}`;
  }
  const scheme = /^https?:\/\//i.exec(rest)?.[0] ?? "";
  const [path = "", ...dirParts] = rest.slice(scheme.length).split("//");
  const url = `${scheme.toLowerCase()}${path}`;
  const host = new URL(url).host;
  if (scheme.toLowerCase() === "http://" && !isLoopbackHost(host)) {
    throw bad(s, what, "plain http:// is spoken to loopback hosts only; use https://");
  }
  const directory = `/${dirParts.join("/").replace(/^\/+|\/+$/g, "")}`;
  return { kind: "https", url, directory, ...(digest ? { digest } : {}) };
}

/** The source as a user writes it (and a Kptfile records it); parseSource reads it back. */
export function formatSource(src: PackageSource): string {
  const dir = src.directory === "/" || src.directory === "" ? "" : `/${src.directory}`.replace(/^\/+/, "//");
  if (src.kind === "oci") {
    const name = `oci://${src.registry}/${src.repository}${dir}`;
    return src.digest ? `${name}@${src.digest}` : `${name}:${src.tag ?? "latest"}`;
  }
  return `${src.url}${dir}${src.digest ? `#sha256=${src.digest.slice("sha256:".length)}` : ""}`;
}

/** `oci://REGISTRY/REPO` (for an OCI source) or the archive URL: the source without directory or version. */
export function sourceRepo(src: PackageSource): string {
  return src.kind === "oci" ? `oci://${src.registry}/${src.repository}` : src.url;
}

/** A directory name for a package fetched from `src`: the last directory, else the repository or file name. */
export function defaultPackageName(src: PackageSource): string {
  const dir = src.directory.split("/").filter(Boolean).pop();
  if (dir) return dir;
  if (src.kind === "oci") return src.repository.split("/").pop() ?? src.repository;
  const file = new URL(src.url).pathname.split("/").filter(Boolean).pop() ?? "package";
  return file.replace(TARBALL, "") || "package";
}
