import type { VariantProblem } from "./problem.js";
import type { DeletionPolicy } from "./schema.js";

export interface PackageRef {
  repo: string;
  package: string;
}

/** A published revision of an upstream package: tag `<package>/<revision>` on `commit`. */
export interface PublishedRevision {
  revision: string;
  commit: string;
  /**
   * The workspace it was published from, as its tagged commit's `kpt:` line (or GitHub's merge message)
   * says; Porch names a revision whose commit says neither `v<N>`, and so does this when it is absent.
   */
  workspace?: string;
  /** Catalog channels holding it (informational; channel heads come from `channelHeads`). */
  channels?: readonly string[];
}

/** What fan-out knows of one upstream package. */
export interface UpstreamPackageState {
  revisions: readonly PublishedRevision[];
  /** Channel → head revision, resolved along the catalog's upgrade graph (see `upstreamFromCatalog`). */
  channelHeads?: Readonly<Record<string, string>>;
  /**
   * The catalog's `defaultChannel` for the package (OLM's): a variant naming no revision, workspace or
   * channel follows its head; with none (a package no channel lists), the latest published revision.
   */
  defaultChannel?: string;
  /**
   * The upstream repository's base branch, Porch's registered branch: `workspaceName` naming it (Porch's
   * placeholder revision, `main`) means the latest published revision, which the branch holds.
   */
  branch?: string;
}

/**
 * What one run learnt of an OCI image or tarball a variant follows: the digest its tag points to now (the
 * sha256 of the tarball's bytes), or why not.
 */
export type SourceState = { digest: string } | { problem: string };

/** OCI images and tarballs by `sourceKey` (registry/repository:tag or @digest; the tarball's URL). */
export type SourceIndex = Readonly<Record<string, SourceState>>;

/** Upstream packages by repository (as variants name it) and package path. */
export type UpstreamIndex = Readonly<Record<string, Readonly<Record<string, UpstreamPackageState>>>>;

/** An open pull request on a variant's branch, as read back from its body marker. */
export interface OpenPullRequest {
  number: number;
  kind: "update" | "deletion" | "orphan";
  headSha?: string;
  /** The upstream revision it proposes (update PRs). */
  targetRevision?: string;
  /** The variant spec hash it was made with (update PRs). */
  specHash?: string;
  /** Commits by someone other than the bot: fan-out does not overwrite them. */
  editedByOthers?: boolean;
  /** Conflicts the merge left for a person to resolve. */
  conflicts?: number;
  draft?: boolean;
  /**
   * The rollout's rebase policy (`rebaseWhen`, src/variants/rebase.ts) says: rebuild it on the default
   * branch, which moved past it; why, in words.
   */
  rebase?: string;
}

/**
 * The newest fan-out pull request of a variant's branch when it was closed without merging (and none is
 * open): a person said "not this revision, for this downstream" (Renovate's rule). Read back from its body
 * marker; no other record is kept.
 */
export interface DeclinedPullRequest {
  number: number;
  /** The upstream revision it proposed. */
  targetRevision: string;
  /** The variant spec hash it was made with. */
  specHash?: string;
  /** It re-applied the variant at the revision the downstream was already on (from = to). */
  reapply: boolean;
}

/** The downstream of one variant, read from its repository by the executing layer. */
export interface DownstreamPackageState {
  /** The package directory exists on the downstream's base branch. */
  exists: boolean;
  /** The upstream revision it is based on (the Kptfile upstreamLock ref `<package>/vN` → `vN`). */
  lockedRevision?: string;
  /** The image digest it is based on, for a package fetched from OCI (porchlight.dev/upstream-lock). */
  lockedDigest?: string;
  /** The variant managing it (annotation porchlight.dev/package-variant), if any. */
  managedBy?: string;
  /** The variant spec hash last applied (annotation porchlight.dev/variant-spec-hash). */
  specHash?: string;
  /** The open pull request on the variant's branch, if any. */
  pullRequest?: OpenPullRequest;
  /** Without an open one: the newest pull request of the branch, closed without merging. */
  declined?: DeclinedPullRequest;
}

/** A downstream package that a variant manages (by its annotations), found in a downstream repository. */
export interface ManagedPackage extends PackageRef {
  variant: string;
  deletionPolicy: DeletionPolicy;
  pullRequest?: OpenPullRequest;
  /**
   * Never published: the package is not on the downstream's base branch, only on the variant's branch,
   * which `pullRequest` proposes (Porch's Draft or Proposed downstream revision).
   */
  unpublished?: boolean;
}

interface ActionBase {
  variant: string;
  /** Why this action, in words for the dashboard and logs. */
  reason: string;
  /** Pull requests the executing layer should close, and why. */
  close?: { number: number; reason: string }[];
}

interface VariantTarget extends ActionBase {
  upstream: PackageRef;
  downstream: PackageRef;
  /** The variant's branch in the downstream repository. */
  branch: string;
  /** The upstream revision the downstream should be on, and its commit (for an image or tarball: the digest, twice). */
  to: string;
  toCommit: string;
  /** For an OCI or tarball upstream: the reference as the variant declares it, and the digest it resolved to. */
  source?: { source: string; digest: string };
  specHash: string;
  /** The open pull request to update rather than open a new one. */
  pullRequest?: number;
  /** Rebuild that pull request's branch on the default branch (replacing its commits), and why. */
  rebase?: string;
}

export type FanoutAction =
  | ({ kind: "clone" } & VariantTarget)
  | ({ kind: "update"; from: string } & VariantTarget)
  | ({
      kind: "nothing";
      downstream: PackageRef;
      deployed?: string;
      target?: string;
      pullRequest?: number;
      conflicts?: number;
      /**
       * Why the open proposal is not published yet: it waits for the downstream's approval, for its
       * conflicts to be resolved, or for the person who pushed commits to it (fan-out leaves it alone).
       */
      held?: "approval" | "conflicts" | "edited";
    } & ActionBase)
  | ({
      kind: "skip";
      /**
       * declined: the newest pull request for this target was closed without merging (`pullRequest`);
       * rollout: a progressive rollout holds it back for now (an earlier step, soak time, a limit).
       */
      why: "paused" | "problem" | "declined" | "rollout";
      downstream?: PackageRef;
      deployed?: string;
      target?: string;
      pullRequest?: number;
      problems?: VariantProblem[];
    } & ActionBase)
  | ({ kind: "deletion-proposal"; downstream: PackageRef; branch: string } & ActionBase)
  | ({ kind: "orphan"; downstream: PackageRef; branch: string } & ActionBase)
  /**
   * A downstream never published whose variant is gone with deletionPolicy delete: its pull request is
   * closed and its branch deleted, as Porch deletes a Draft or Proposed revision it owns.
   */
  | ({ kind: "discard"; downstream: PackageRef; branch: string; pullRequest: number } & ActionBase);

export interface FanoutPlan {
  actions: FanoutAction[];
}
