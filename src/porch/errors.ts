import { GitHubError, type GitHubErrorKind } from "../github/errors.js";
import { GitCommandError, type GitFailureKind } from "../github/git-process.js";

/**
 * What went wrong, as the engine's callers must tell it apart: each door maps a kind to its own answer
 * (the API to a metav1.Status reason and code, rpkg to porchctl's text and exit code) with one switch,
 * and never reads a kind back out of a message.
 */
export type PorchErrorKind =
  /** No such revision, repository, branch or file. */
  | "not-found"
  /** The name is taken (a package that exists, a directory already there). */
  | "already-exists"
  /** Another request changed the object first (a compare-and-swap on a ref lost, a stale version). */
  | "conflict"
  /** The caller may not do this (GitHub refused the token's permission, a published revision deleted). */
  | "forbidden"
  /** GitHub refused the token itself. */
  | "unauthorized"
  /** The object is invalid: each field's problem in `causes`. */
  | "invalid"
  /** The request cannot be carried out as asked (a lifecycle that does not allow it, a bad argument). */
  | "bad-request"
  /** More than a limit allows (annotations over 256 KiB). */
  | "too-large"
  /** GitHub's rate limit: try again after `retryAfter` seconds. */
  | "rate-limited"
  /** GitHub or git could not be reached or answered with a server error. */
  | "unavailable"
  /** Anything else: a failure nobody asked for. */
  | "internal";

/** One field's problem in an invalid object (Kubernetes' `details.causes`). */
export interface PorchErrorCause {
  field: string;
  reason: string;
  message: string;
}

/** Where a failure came from, when the engine translated it from GitHub's or git's (porchErrorOf). */
export type PorchErrorOrigin =
  | { from: "github"; kind: GitHubErrorKind }
  /** A git command (`command`: push, fetch…), and what kind of failure git's door said it was. */
  | { from: "git"; kind: GitFailureKind; command: string };

/** The engine's one failure: its kind, Porch's (or porchctl's) message text as written, and what to do next. */
export class PorchError extends Error {
  constructor(
    readonly kind: PorchErrorKind,
    /** Porch's or porchctl's own text where they have one (scripts compare it byte for byte). */
    message: string,
    /** What to do next (rpkg prints it with -v; the API adds it to the message, except to a not-found). */
    readonly hint?: string,
    /**
     * Said on the next line to a person at a terminal (and with -v), where porchctl's words alone would
     * mislead a porchlight user: "did you mean …?" for a mistyped name, porchlight's verb for a step
     * porchctl words otherwise. A script reading stderr gets porchctl's bytes alone, as with progress.
     */
    readonly advice?: string,
    readonly more: {
      causes?: PorchErrorCause[];
      /** Seconds to wait before trying again (rate-limited). */
      retryAfter?: number;
      origin?: PorchErrorOrigin;
      /** The request named its target wrongly (a repository that is no OWNER/REPO): the command line's usage error. */
      usage?: boolean;
    } = {},
  ) {
    super(message);
    this.name = "PorchError";
  }
}

/** A name no revision has: Kubernetes' not-found text, what exists in the hint. */
export class RevisionNotFound extends PorchError {
  constructor(
    readonly revisionName: string,
    hint: string,
    advice?: string,
  ) {
    super("not-found", `packagerevisions.porch.kpt.dev "${revisionName}" not found`, hint, advice);
  }
}

/**
 * Porch's answer to a request that lost to another on the same revision at the same moment: here, a
 * compare-and-swap on a ref (a push that must move the branch itself, a deletion while the ref is
 * still where it was read, a second pull request from one branch) that failed. Kubernetes' Conflict,
 * in Porch's words (pkg/registry/porch: another request is already in progress).
 */
export function revisionConflict(namespace: string, name: string, hint: string): PorchError {
  return new PorchError(
    "conflict",
    `Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "${name}": another request is already in progress on package revision "${namespace}/${name}"`,
    hint,
  );
}

/** The same for the resources of a draft (`rpkg push`). */
export function resourcesConflict(namespace: string, name: string, hint: string): PorchError {
  return new PorchError(
    "conflict",
    `Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "${name}": another request is already in progress on package revision resources "${namespace}/${name}"`,
    hint,
  );
}

/** The same for a new revision (init, clone, copy, upgrade) that another request created first. */
export function creationConflict(
  at: { namespace: string; repository: string; package: string; workspace: string },
  hint: string,
): PorchError {
  return new PorchError(
    "conflict",
    `Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "(new creation)": another request is already in progress to create package revision with details namespace="${at.namespace}", repository="${at.repository}", package="${at.package}",workspace="${at.workspace}"`,
    hint,
  );
}

const GITHUB_KINDS: Record<GitHubErrorKind, PorchErrorKind> = {
  "not-found": "not-found",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  validation: "invalid",
  conflict: "conflict",
  // GitHub refused the action on the resource as it is now (a merge): the state conflicts with it
  "not-allowed": "conflict",
  "merge-refused": "conflict",
  "rate-limited": "rate-limited",
  server: "unavailable",
  network: "unavailable",
};

/**
 * The one translation of GitHub's and git's failures into the engine's: a GitHubError by its kind, a git
 * command by the kind its door gave it — the server refused the token (401) or what the token asked (403):
 * forbidden; any other git failure: internal. Anything else passes as is.
 */
export function porchErrorOf(e: unknown): unknown {
  if (e instanceof PorchError) return e;
  if (e instanceof GitHubError) {
    return new PorchError(GITHUB_KINDS[e.kind], e.message, undefined, undefined, {
      ...(e.retryAfter === undefined ? {} : { retryAfter: e.retryAfter }),
      origin: { from: "github", kind: e.kind },
    });
  }
  if (e instanceof GitCommandError) {
    const tokenRefused = e.kind === "auth" || e.kind === "forbidden";
    return new PorchError(tokenRefused ? "forbidden" : "internal", e.message, undefined, undefined, {
      origin: { from: "git", kind: e.kind, command: e.args[0] ?? "" },
    });
  }
  return e;
}
