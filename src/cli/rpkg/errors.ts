import { GitHubError } from "../../github/errors.js";
import { GitCommandError } from "../../github/git-process.js";

/** A failure meant for the person at the terminal, as written: the CLI prints it and exits 1. */
export class RpkgError extends Error {
  /**
   * `message` is porchctl's own text where porchctl has one (scripts compare it); `hint`, what to do
   * next, is printed with -v (--verbose).
   */
  constructor(
    message: string,
    readonly hint?: string,
    /**
     * Said on the next line to a person at a terminal (and with -v), where porchctl's words alone would
     * mislead a porchlight user: "did you mean …?" for a mistyped name, porchlight's verb for a step
     * porchctl words otherwise. A script reading stderr gets porchctl's bytes alone, as with progress.
     */
    readonly advice?: string,
  ) {
    super(message);
    this.name = "RpkgError";
  }
}

/**
 * The lines printed after a failure line (porchctl's own, kept as porchctl writes it): the advice on a
 * terminal or with -v, the hint only with -v.
 */
export function failureAdvice(e: unknown, verbose: boolean | undefined, terminal: boolean): string {
  if (!(e instanceof RpkgError)) return "";
  const advice = e.advice === undefined || !(verbose || terminal) ? "" : `  ${e.advice}\n`;
  return `${advice}${verbose && e.hint ? `  ${e.hint}\n` : ""}`;
}

/** "did you mean …?" for the name closest to a mistyped one, or undefined when none is close. */
export function didYouMean(name: string | undefined): string | undefined {
  return name === undefined ? undefined : `did you mean ${name}?`;
}

/**
 * A refusal porchctl makes while checking its flags, before it asks the server anything: printed as
 * porchctl prints those (`error: …`, lower case, no trailing space), exit 1.
 */
export class FlagRefusal extends RpkgError {
  override name = "FlagRefusal";
}

/** A name no revision has: porchctl's text (Kubernetes' not-found), what exists in the hint. */
export class RevisionNotFound extends RpkgError {
  constructor(
    readonly revisionName: string,
    hint: string,
    advice?: string,
  ) {
    super(`packagerevisions.porch.kpt.dev "${revisionName}" not found`, hint, advice);
  }
}

/**
 * Porch's answer to a request that lost to another on the same revision at the same moment: here, a
 * compare-and-swap on a ref (a push that must move the branch itself, a deletion while the ref is
 * still where it was read, a second pull request from one branch) that failed. Kubernetes' Conflict,
 * in Porch's words (pkg/registry/porch: another request is already in progress).
 */
export function revisionConflict(namespace: string, name: string, hint: string): RpkgError {
  return new RpkgError(
    `Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "${name}": another request is already in progress on package revision "${namespace}/${name}"`,
    hint,
  );
}

/** The same for the resources of a draft (`rpkg push`). */
export function resourcesConflict(namespace: string, name: string, hint: string): RpkgError {
  return new RpkgError(
    `Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "${name}": another request is already in progress on package revision resources "${namespace}/${name}"`,
    hint,
  );
}

/** The same for a new revision (init, clone, copy, upgrade) that another request created first. */
export function creationConflict(
  at: { namespace: string; repository: string; package: string; workspace: string },
  hint: string,
): RpkgError {
  return new RpkgError(
    `Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "(new creation)": another request is already in progress to create package revision with details namespace="${at.namespace}", repository="${at.repository}", package="${at.package}",workspace="${at.workspace}"`,
    hint,
  );
}

/** What to tell the user for a failure while working on `repository`. */
export function describeFailure(e: unknown, repository: string): string {
  if (e instanceof RpkgError) return e.message;
  if (e instanceof GitHubError) {
    switch (e.kind) {
      case "unauthorized":
        return `${e.message}; the token in GH_TOKEN/GITHUB_TOKEN was refused: check it is valid and not expired`;
      case "forbidden":
        return `${e.message}; the token lacks permission on ${repository} (it needs contents, pull requests and issues write)`;
      case "not-found":
        return `${e.message}; check the repository name ${repository}, the --api-url, and that the token can see it`;
      case "rate-limited":
        return `${e.message}; GitHub's rate limit: try again in ${e.retryAfter ?? 60} s`;
      default:
        return e.message;
    }
  }
  if (e instanceof GitCommandError && writeRefused(e))
    return `the token may read ${repository} but not write to it (git push was refused: HTTP 403); ask an administrator of ${repository} to give you write access (on GitHub: the repository's Settings → Collaborators and teams; a repository just created has no collaborators but its owners)`;
  if (e instanceof GitCommandError) return `git failed talking to ${repository}: ${e.message}`;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** A push git's server refused for permission (GitHub: "Permission to O/R.git denied to U", HTTP 403). */
function writeRefused(e: GitCommandError): boolean {
  return e.args[0] === "push" && (/Permission to \S+ denied/.test(e.stderr) || /error: 403\b/.test(e.stderr));
}
