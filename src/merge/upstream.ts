import type { PlainKptfile } from "../kpt/kptfile.js";
import {
  formatSource,
  isDigest,
  type PackageSource,
  parseSource,
  SourceRefError,
  sourceKind,
  sourceRepo,
  UPSTREAM_ANNOTATION,
  UPSTREAM_LOCK_ANNOTATION,
} from "../kpt/source-ref.js";
import type { FileTree } from "../kpt/tree.js";
import { KPTFILE } from "./layout.js";
import { readKptfile } from "./package-merge.js";
import { MergeError, type UpdateStrategy, type UpstreamLock } from "./types.js";

/**
 * Where a package's Kptfile says it came from. A git upstream is kpt's `upstream.git` and
 * `upstreamLock.git`. An OCI or tarball upstream is recorded where kpt v1 tolerates it — kpt decodes
 * a Kptfile strictly and knows no `upstream.oci` — as two annotations, `porchlight.dev/upstream` (the
 * source as asked: `oci://REGISTRY/REPO[//DIR]:TAG`, a tarball URL) and `porchlight.dev/upstream-lock`
 * (the same at the digest it resolved to), with `upstream.updateStrategy` kept as kpt has it. kpt's
 * own `upstream.oci.image` / `upstreamLock.oci.image`, where a user wrote them, are read and kept.
 */

/** What a local package's Kptfile says about its upstream. */
export interface UpstreamInfo {
  kf: PlainKptfile;
  /** A git repository, `oci://REGISTRY/REPO`, or a tarball's URL. */
  repo: string;
  /** Directory in the repository, image or archive, with a leading slash. */
  directory: string;
  /** The ref recorded in `upstream.git.ref`; for OCI the tag or digest; for a tarball its sha256 pin, or "". */
  ref: string;
  /** The commit recorded in `upstreamLock.git.commit` (what the package was cloned from); for OCI and tarballs the digest. */
  lockCommit?: string;
  /** The strategy recorded in `upstream.updateStrategy`, if any. */
  strategy?: string;
}

function sourceOf(kf: PlainKptfile, file: string): { up: PackageSource; lock?: PackageSource } | undefined {
  const annotations = kf.metadata?.annotations ?? {};
  const read = (value: unknown, field: string): PackageSource | undefined => {
    if (typeof value !== "string" || value === "") return undefined;
    const text = field.includes(".oci.") && !value.startsWith("oci://") ? `oci://${value}` : value;
    try {
      return parseSource(text, `${file}: ${field}`);
    } catch (err) {
      if (err instanceof SourceRefError) throw new MergeError(err.message);
      throw err;
    }
  };
  const annotated = read(annotations[UPSTREAM_ANNOTATION], `metadata.annotations.${UPSTREAM_ANNOTATION}`);
  if (annotated) {
    return {
      up: annotated,
      lock: read(annotations[UPSTREAM_LOCK_ANNOTATION], `metadata.annotations.${UPSTREAM_LOCK_ANNOTATION}`),
    };
  }
  const oci = read(kf.upstream?.oci?.image, "upstream.oci.image");
  if (oci) return { up: oci, lock: read(kf.upstreamLock?.oci?.image, "upstreamLock.oci.image") };
  return undefined;
}

/** True when the Kptfile names an upstream of any kind (git, OCI, tarball). */
export function hasUpstream(kf: PlainKptfile): boolean {
  const annotations = kf.metadata?.annotations ?? {};
  return Boolean(kf.upstream?.git || kf.upstream?.oci?.image || annotations[UPSTREAM_ANNOTATION]);
}

/** Reads the upstream of the package `local` (`dir` names it in messages); refuses when there is none. */
export function upstreamOf(local: FileTree, dir: string): UpstreamInfo {
  if (!local.has(KPTFILE)) {
    throw new MergeError(
      `${dir}: no Kptfile here; only a package fetched with "pkg get" can be updated or compared with its upstream`,
      `No Kptfile found at "${dir}".`,
    );
  }
  const kf = readKptfile(local, `${dir}/${KPTFILE}`);
  const strategy = kf.upstream?.updateStrategy ? String(kf.upstream.updateStrategy) : undefined;
  const source = sourceOf(kf, `${dir}/${KPTFILE}`);
  if (source) {
    const { up, lock } = source;
    const ref = up.kind === "oci" ? (up.tag ?? up.digest ?? "latest") : (up.digest ?? "");
    return { kf, repo: sourceRepo(up), directory: up.directory, ref, lockCommit: lock?.digest, strategy };
  }
  const git = kf.upstream?.git;
  if (!git?.repo) {
    throw new MergeError(
      `${dir}/${KPTFILE}: the package has no upstream (upstream.git.repo is not set); it was not fetched with "pkg get", so there is nothing to update from`,
      "package must have an upstream reference",
    );
  }
  const lock = kf.upstreamLock?.git?.commit;
  return {
    kf,
    repo: String(git.repo),
    directory: String(git.directory ?? "/"),
    ref: String(git.ref ?? ""),
    lockCommit: lock ? String(lock) : undefined,
    strategy,
  };
}

/** The source as asked (`ref`) and as locked (`commit`), for an OCI or tarball lock. */
function lockedSources(lock: UpstreamLock): { asked: PackageSource; locked: PackageSource } {
  if (sourceKind(lock.repo) === "oci") {
    const base = parseSource(lock.repo, "upstream");
    if (base.kind !== "oci") throw new MergeError(`upstream "${lock.repo}" is not an OCI repository`);
    const version = isDigest(lock.ref) ? { digest: lock.ref } : { tag: lock.ref || "latest" };
    const repoOnly = {
      kind: "oci" as const,
      registry: base.registry,
      repository: base.repository,
      directory: lock.directory,
    };
    return { asked: { ...repoOnly, ...version }, locked: { ...repoOnly, digest: lock.commit } };
  }
  const url = lock.resolvedRef || lock.repo;
  const asked: PackageSource = {
    kind: "https",
    url,
    directory: lock.directory,
    ...(isDigest(lock.ref) ? { digest: lock.ref } : {}),
  };
  return { asked, locked: { ...asked, digest: lock.commit } };
}

/**
 * Records in the Kptfile where the package now comes from: for git, kpt's `upstream.git` (repo kept
 * when set, ref) and `upstreamLock.git`; for OCI and tarballs the two annotations (or kpt's
 * `upstream.oci` shapes when the Kptfile already uses them). `strategy`, when given, is set too.
 */
export function recordUpstream(kf: PlainKptfile, lock: UpstreamLock, strategy?: UpdateStrategy): void {
  if (!sourceKind(lock.repo)) {
    kf.upstream = kf.upstream ?? { type: "git" };
    kf.upstream.git = { ...(kf.upstream.git ?? {}), repo: kf.upstream.git?.repo ?? lock.repo, ref: lock.ref };
    if (strategy) kf.upstream.updateStrategy = strategy;
    kf.upstreamLock = {
      type: "git",
      git: {
        repo: lock.repo,
        directory: lock.directory,
        ref: lock.resolvedRef ?? lock.ref,
        commit: lock.commit,
      },
    };
    return;
  }
  const { asked, locked } = lockedSources(lock);
  const updateStrategy = strategy ?? kf.upstream?.updateStrategy;
  if (kf.upstream?.oci?.image && asked.kind === "oci") {
    const image = (s: PackageSource) => formatSource(s).slice("oci://".length);
    kf.upstream = {
      type: "oci",
      oci: { image: image(asked) },
      ...(updateStrategy ? { updateStrategy } : {}),
    };
    kf.upstreamLock = { type: "oci", oci: { image: image(locked) } };
    return;
  }
  kf.metadata = kf.metadata ?? {};
  kf.metadata.annotations = {
    ...(kf.metadata.annotations ?? {}),
    [UPSTREAM_ANNOTATION]: formatSource(asked),
    [UPSTREAM_LOCK_ANNOTATION]: formatSource(locked),
  };
  kf.upstream = updateStrategy ? { updateStrategy } : undefined;
  if (!kf.upstream) delete kf.upstream;
  delete kf.upstreamLock;
}
