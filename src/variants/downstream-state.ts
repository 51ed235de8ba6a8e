import { readKptfileFields } from "../kpt/kptfile.js";
import { parseSource, sourceKind, UPSTREAM_LOCK_ANNOTATION } from "../kpt/source-ref.js";
import type { DownstreamPackageState, ManagedPackage, OpenPullRequest } from "./plan-types.js";
import type { DeletionPolicy } from "./schema.js";
import { DELETION_POLICY_ANNOTATION, MANAGED_BY_ANNOTATION, SPEC_HASH_ANNOTATION } from "./tracking.js";

export interface KptfileFacts {
  /** The upstream revision the package is locked to: `v3` from upstreamLock.git.ref `basens/v3`. */
  lockedRevision?: string;
  /** The raw upstreamLock ref, e.g. `basens/v3` or `drafts/basens/ws1`. */
  lockedRef?: string;
  lockedCommit?: string;
  /**
   * For a package fetched from OCI or a tarball: the digest of porchlight.dev/upstream-lock (or kpt's
   * upstreamLock.oci.image).
   */
  lockedDigest?: string;
  managedBy?: string;
  deletionPolicy?: DeletionPolicy;
  specHash?: string;
}

/**
 * What fan-out needs from a downstream Kptfile: its upstream lock (Porch takes the part of the ref after
 * the last `/` as the revision; a ref on a draft is no published revision) and porchlight's tracking
 * annotations. A Kptfile that cannot be read gives no facts, which plans as "no upstream lock".
 */
export function readKptfileFacts(kptfileText: string): KptfileFacts {
  const { annotations, lockRef: ref, lockCommit, lockImage: image } = readKptfileFields(kptfileText);
  const last = ref?.slice(ref.lastIndexOf("/") + 1);
  const str = (k: string): string | undefined => annotations[k];
  const policy = str(DELETION_POLICY_ANNOTATION);
  const sourceLock = str(UPSTREAM_LOCK_ANNOTATION) ?? (image !== undefined ? `oci://${image}` : undefined);
  const lockedDigest = sourceLock ? digestOf(sourceLock) : undefined;
  return {
    ...(lockedDigest ? { lockedDigest } : {}),
    ...(ref ? { lockedRef: ref } : {}),
    ...(ref && !ref.startsWith("drafts/") && last && /^v[1-9][0-9]*$/.test(last)
      ? { lockedRevision: last }
      : {}),
    ...(lockCommit !== undefined ? { lockedCommit: lockCommit } : {}),
    ...(str(MANAGED_BY_ANNOTATION) ? { managedBy: str(MANAGED_BY_ANNOTATION) } : {}),
    ...(policy === "delete" || policy === "orphan" ? { deletionPolicy: policy } : {}),
    ...(str(SPEC_HASH_ANNOTATION) ? { specHash: str(SPEC_HASH_ANNOTATION) } : {}),
  };
}

/** The digest an `oci://…@sha256:…` or `https://….tar.gz#sha256=…` lock names; undefined for a bad value. */
function digestOf(lock: string): string | undefined {
  if (!sourceKind(lock)) return undefined;
  try {
    return parseSource(lock).digest;
  } catch {
    return undefined;
  }
}

/** The planner's view of a variant's downstream, from its Kptfile (undefined: the package does not exist). */
export function downstreamState(
  kptfileText: string | undefined,
  pullRequest?: OpenPullRequest,
): DownstreamPackageState {
  if (kptfileText === undefined) return { exists: false, ...(pullRequest ? { pullRequest } : {}) };
  const f = readKptfileFacts(kptfileText);
  return {
    exists: true,
    ...(f.lockedRevision ? { lockedRevision: f.lockedRevision } : {}),
    ...(f.lockedDigest ? { lockedDigest: f.lockedDigest } : {}),
    ...(f.managedBy ? { managedBy: f.managedBy } : {}),
    ...(f.specHash ? { specHash: f.specHash } : {}),
    ...(pullRequest ? { pullRequest } : {}),
  };
}

/** A package a variant manages, found in a downstream repository, or undefined when none does. */
export function managedPackage(
  repo: string,
  pkg: string,
  kptfileText: string,
  pullRequest?: OpenPullRequest,
): ManagedPackage | undefined {
  const f = readKptfileFacts(kptfileText);
  if (!f.managedBy) return undefined;
  return {
    repo,
    package: pkg,
    variant: f.managedBy,
    deletionPolicy: f.deletionPolicy ?? "delete",
    ...(pullRequest ? { pullRequest } : {}),
  };
}
