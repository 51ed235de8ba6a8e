import { createHash } from "node:crypto";
import type { PackageRevision } from "../lifecycle/index.js";
import type { PorchTask, PublishInfo } from "../lifecycle/kpt-trailer.js";
import { nameOf } from "./names.js";
import type { Readiness } from "./readiness.js";
import type { OwnerReference, RevisionMetadata } from "./registrations.js";
import type { Repository } from "./repository.js";
import type { UpstreamLock } from "./upstream-lock.js";

const PORCH_API_VERSION = "porch.kpt.dev/v1alpha1";

/** The label Porch computes for the latest published revision of a package: never set by a client. */
export const LATEST_LABEL = "kpt.dev/latest-revision";
/** Where the revision lives on GitHub, for people and scripts. */
const REF_ANNOTATION = "porchlight.dev/ref";
const COMMIT_ANNOTATION = "porchlight.dev/commit";
const PULL_ANNOTATION = "porchlight.dev/pull-request";

export interface PackageRevisionObject {
  apiVersion: typeof PORCH_API_VERSION;
  kind: "PackageRevision";
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels?: Record<string, string>;
    annotations: Record<string, string>;
    /** Who owns the revision (a PackageVariant, by uid), kept in git with its labels and annotations. */
    ownerReferences?: OwnerReference[];
  };
  spec: {
    packageName: string;
    workspaceName: string;
    /** Absent until published, as Porch's (`omitempty`): custom columns show `<none>`. */
    revision?: number;
    repository: string;
    lifecycle: string;
    /** How the revision began (Porch keeps only that task), from its commits' `kpt:` lines. */
    tasks?: PorchTask[];
    /** The labels and annotations of the package's Kptfile, as Porch's. */
    packageMetadata?: Omit<PackageMetadata, "readiness">;
    /** The Kptfile's `info.readinessGates`, as Porch's (omitted when none). */
    readinessGates?: Readiness["gates"];
  };
  status: Record<string, unknown>;
}

/**
 * Porch's `spec.packageMetadata`: the Kptfile's `metadata.labels` and `metadata.annotations`; read with
 * them, the Kptfile's gates and conditions (readiness.ts), which the object shows as
 * `spec.readinessGates` and `status.conditions`.
 */
export interface PackageMetadata {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  readiness?: Readiness;
}

/** What the object shows besides the revision itself, each read only where the output needs it. */
export interface RevisionDetails {
  upstreamLock?: UpstreamLock | undefined;
  tasks?: PorchTask[] | undefined;
  /** Who published the revision and when (`status.publishedBy`, `status.publishTimestamp`). */
  published?: PublishInfo | undefined;
  /** The revision's own labels and annotations (`rpkg label`, `rpkg annotate`), kept in git. */
  metadata?: RevisionMetadata | undefined;
  packageMetadata?: PackageMetadata | undefined;
}

/**
 * A revision as Porch's PackageRevision object (porch.kpt.dev/v1alpha1): the same names and fields
 * (`spec.packageName`, `workspaceName`, `revision`, `repository`, `lifecycle`), the repository's owner
 * in place of the namespace, and annotations saying where the revision lives on GitHub; a downstream
 * revision's `status.upstreamLock` says which upstream revision it carries, as Porch's does, and a
 * published one's `status.publishedBy` and `publishTimestamp` who published it and when. The
 * revision's own labels and annotations come first; Porch's latest-revision label and porchlight's
 * annotations of where it lives are computed, and win.
 */
export function packageRevisionObject(
  repo: Pick<Repository, "name" | "full" | "namespace">,
  rev: PackageRevision,
  details: RevisionDetails = {},
): PackageRevisionObject {
  const { upstreamLock, tasks, published, metadata } = details;
  const { readiness, ...packageMetadata } = details.packageMetadata ?? {};
  const annotations: Record<string, string> = {
    ...metadata?.annotations,
    [REF_ANNOTATION]: rev.ref,
    [COMMIT_ANNOTATION]: rev.sha,
  };
  if (rev.pullRequest !== undefined) annotations[PULL_ANNOTATION] = String(rev.pullRequest);
  const obj: PackageRevisionObject = {
    apiVersion: PORCH_API_VERSION,
    kind: "PackageRevision",
    metadata: {
      name: nameOf(repo, rev),
      namespace: repo.namespace,
      uid: porchUid(repo.namespace, nameOf(repo, rev)),
      annotations,
      ...(metadata?.ownerReferences?.length ? { ownerReferences: metadata.ownerReferences } : {}),
    },
    spec: {
      packageName: rev.package,
      workspaceName: rev.workspace,
      ...(rev.revision !== 0 ? { revision: rev.revision } : {}),
      repository: repo.name,
      lifecycle: rev.lifecycle,
      ...(tasks?.length ? { tasks } : {}),
      ...(packageMetadata.labels || packageMetadata.annotations ? { packageMetadata } : {}),
      ...(readiness?.gates.length ? { readinessGates: readiness.gates } : {}),
    },
    status: {
      ...(upstreamLock ? { upstreamLock } : {}),
      ...(published ? { publishedBy: published.by, publishTimestamp: timestamp(published.at) } : {}),
      ...(readiness?.conditions.length ? { conditions: readiness.conditions } : {}),
    },
  };
  const labels = { ...metadata?.labels, ...(rev.latest ? { [LATEST_LABEL]: "true" } : {}) };
  if (Object.keys(labels).length > 0) obj.metadata.labels = labels;
  return obj;
}

/** Porch's metav1.Time: RFC 3339 in UTC, to the second. */
export const timestamp = (at: Date) => at.toISOString().replace(/\.\d+Z$/, "Z");

/**
 * The uid Porch gives a PackageRevision: a name-based (SHA-1) UUID of its namespace and name in
 * Porch's own UUID namespace (pkg/util GenerateUid), so the same revision has the same uid in both.
 */
function porchUid(namespace: string, name: string): string {
  const space = Buffer.from("aac71d915c67456f8fd2902ef6da820e", "hex");
  const what = `packagerevision:${PORCH_API_VERSION}/${namespace.toLowerCase()}/${name.toLowerCase()}`;
  const b = createHash("sha1").update(space).update(what).digest().subarray(0, 16);
  // b holds 16 bytes: a sha1 digest's first sixteen
  b[6] = (b[6]! & 0x0f) | 0x50;
  // (as above)
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = b.toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** kubectl's wrapper for several objects. */
export function listObject(items: readonly unknown[]): Record<string, unknown> {
  return { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items };
}

/**
 * An object's resourceVersion: a digest of the object itself, which git alone makes (a revision's ref and
 * commit, its pull request, its labels and annotations in the namespace's .porchlight): any change on
 * GitHub is a new version, and the same state is the same version on every read. Keys sorted: the same
 * object read in another order (a file written again) is the same version.
 */
export function withVersion<T extends object>(obj: T): T & { metadata: { resourceVersion: string } } {
  const sorted = (_: string, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v;
  const version = createHash("sha1").update(JSON.stringify(obj, sorted)).digest("hex").slice(0, 16);
  const meta = (obj as { metadata?: object }).metadata;
  return { ...obj, metadata: { ...meta, resourceVersion: version } };
}
