import type { Permission } from "../api/permission.js";
import type { FileTree } from "../kpt/tree.js";
import type { CheckAnnotation } from "../lifecycle/check-run.js";
import type { KptAnnotation } from "../lifecycle/kpt-trailer.js";
import type { RefInfo } from "../lifecycle/refs.js";

/**
 * The one door to GitHub, as the deciding code sees it (release-please's `scm.ts`, Renovate's
 * `Platform`): plain data in and out, GitHubError on failure. Metadata goes by REST, content by git.
 * `src/github/octokit-repo.ts` implements it over Octokit and git; tests may implement it in memory.
 */
export interface RepoId {
  owner: string;
  repo: string;
}

/** GitHub's repository permission levels: one type, with its order, in src/commands/permission.ts. */
export type { Permission };

export interface PullRequest {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  merged: boolean;
  draft: boolean;
  headRef: string;
  headSha: string;
  /** `owner/repo` of the head branch; differs from the base repository for a fork, null when deleted. */
  headRepo: string | null;
  baseRef: string;
  /** The base branch's commit when the pull request was last updated. */
  baseSha: string;
  labels: string[];
  author: string;
  mergeCommitSha: string | null;
  /** Who merged it; only a single pull request's read (`getPull`) says, listings leave it out. */
  mergedBy?: string;
  url: string;
  /** When it was opened (RFC 3339); absent where the source does not say. */
  createdAt?: string;
  /** When GitHub last changed it (RFC 3339, to the second); absent where the source does not say. */
  updatedAt?: string;
  /**
   * Whether it merges cleanly into its base: null while GitHub computes it; only a single pull request's
   * read (`getPull`) says, listings leave it out.
   */
  mergeable?: boolean | null;
}

export interface Review {
  id: number;
  user: string;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";
  /** The head SHA the review was given on. */
  commitId: string;
}

export interface CheckRunState {
  id: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  externalId: string | null;
}

export interface CheckRunInput {
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion?: "success" | "failure" | "neutral" | "cancelled" | "skipped" | "timed_out" | "action_required";
  /** Identifies what the run checked (e.g. the rendered tree's hash): an equal run is not redone. */
  externalId?: string;
  title?: string;
  summary?: string;
  text?: string;
  annotations?: readonly CheckAnnotation[];
}

/** A file as the git tree lists it. */
export interface FileEntry {
  path: string;
  size: number;
}

export interface CommitAuthor {
  name: string;
  email: string;
}

export type PushResult = { ok: true; sha: string } | { ok: false; reason: "non-fast-forward" | "unchanged" };

/**
 * One repository, through the door, in the roles its callers play (docs/architecture.md, "Narrow
 * doors"): a function takes the role it uses — `RepoFiles` to read a package, `RepoChecks` to write a
 * check run — so its signature says what it touches and a test's fake implements only that. `RepoPort`
 * is all of them: what a job holds, and what the adapters (Octokit and git, the forge) implement.
 */
interface RepoRole {
  readonly id: RepoId;
}

/** Reading the repository's git data: refs, trees, files, commits (by git, or REST where named). */
export interface RepoFiles extends RepoRole {
  /** Every branch and tag, in one request (git ls-remote), peeled tags included. */
  listRefs(): Promise<RefInfo[]>;
  /**
   * The files of the commit `ref` points at (branch, tag or SHA), optionally only below `dir`. A symbolic
   * link is a file whose content is the link's text (never the file it names), listed in `symlinks`.
   * `blobs`, where given, holds each file's git blob id (what git listed: no file is hashed again).
   */
  readTree(
    ref: string,
    dir?: string,
  ): Promise<{ sha: string; tree: FileTree; symlinks?: string[]; blobs?: ReadonlyMap<string, string> }>;
  /**
   * The names and sizes of the files of the commit `ref` points at, optionally only below `dir` (paths
   * relative to it), from the git tree alone: no file is read, so a budget can be checked first.
   */
  listFiles(ref: string, dir?: string): Promise<{ sha: string; files: FileEntry[] }>;
  /** The paths `head` changed since it forked from `base` (`git diff base...head`). */
  changedPaths(base: string, head: string): Promise<string[]>;
  /**
   * The first parent of commit `sha` (null for a root commit) and the paths below `dir` (relative to it)
   * that differ between the two: what this commit changed in a package.
   */
  parentChange(sha: string, dir?: string): Promise<{ parent: string | null; paths: string[] }>;
  /** A file's text at `ref`, or undefined when absent. */
  getFile(path: string, ref: string): Promise<string | undefined>;

  /** The commits reachable from `head` but not from `base` (`git log base..head`), newest first, by git. */
  listCommits(base: string, head: string): Promise<CommitInfo[]>;
  /** The messages of commits `shas` (fetched where needed, in one request), by git. */
  commitMessages(shas: readonly string[]): Promise<Map<string, string>>;
  /**
   * The commits reachable from `head`, newest first by committer date (`git log --date-order`), at most
   * `limit`, with their messages and authors, by git: Porch reads a revision's tasks from their `kpt:`
   * lines, and who published it, and when, from their authors.
   */
  history(head: string, limit: number): Promise<HistoryCommit[]>;
  /** When commit `sha` was committed (its committer date), by git. */
  commitTime(sha: string): Promise<Date>;
  /**
   * When each file below `dir` that `head` holds was added (the committer date of the newest commit
   * reachable from `head` that added it), by path relative to `dir`: one git log, by git.
   */
  addedAt(head: string, dir: string): Promise<Map<string, Date>>;
  /**
   * Each package directory's last change: the newest commit of `head`'s first-parent line that changed
   * something below it against its first parent (a merged proposal's merge commit), by directory, in
   * one git log. With `since` (an earlier head of the same branch),
   * only the directories changed after it are answered, unless the branch was rewritten since (then all).
   */
  lastChanges(head: string, dirs: readonly string[], since?: string): Promise<Map<string, string>>;
}

/** Writing the repository's git data: commits pushed, tags created, refs deleted. */
export interface RepoPushes extends RepoRole {
  /**
   * Commits `tree` as the new content of `dir` ("" = whole repository) on top of `parent` and pushes
   * it to `branch` without force; a branch that moved meanwhile gives non-fast-forward, a tree equal
   * to the parent's gives unchanged (no empty commits, unless `allowEmpty`). With `replaces`, the push replaces the branch
   * only if it is still at that commit (force with lease), else non-fast-forward.
   */
  commitTree(input: {
    branch: string;
    parent: string | null;
    replaces?: string;
    dir: string;
    tree: FileTree;
    /**
     * The git blob id of files of `tree` where the caller knows it (git listed the file, and the caller
     * hands on its very bytes): those are not hashed again. A wrong id would commit other bytes.
     */
    blobIds?: ReadonlyMap<string, string>;
    message: string;
    author: CommitAuthor;
    /**
     * The `kpt:` line Porch reads (lifecycle/kpt-trailer.ts) appended to the message: by default the
     * package and workspace `branch` names, when it is a package revision's branch; null for none.
     */
    kpt?: KptAnnotation | null;
    /** Commit even when the tree equals the parent's (a new draft's first commit, as Porch writes one). */
    allowEmpty?: boolean;
    /**
     * This push must move the branch itself (a compare-and-swap): a branch another request already
     * moved to this very commit is non-fast-forward too, not a success shared by both.
     */
    exclusive?: boolean;
  }): Promise<PushResult>;

  /**
   * Creates tag `name` on `sha`; "exists" when the tag is already there (on any commit). With
   * `dropping`, the branch is deleted with it, only while it is still at `at`, in one push (both or
   * neither, where the server allows it): "created" then means the branch is gone too, or had moved on
   * and stays; after "exists" it may still be there.
   */
  createTag(
    name: string,
    sha: string,
    dropping?: { branch: string; at: string },
  ): Promise<"created" | "exists">;

  /**
   * Deletes `ref` (a full name, `refs/tags/…` or `refs/heads/…`) only if it still points at `sha`, by git
   * (a push with lease): "gone" when it no longer exists, "moved" when it points elsewhere.
   */
  deleteRefIf(ref: string, sha: string): Promise<"deleted" | "gone" | "moved">;

  /** Deletes branch `name`; a branch already gone is fine. */
  deleteBranch(name: string): Promise<void>;
}

/** Pull requests: read, opened, edited, merged, reviewed, labelled. */
export interface RepoPulls extends RepoRole {
  getPull(number: number): Promise<PullRequest>;
  listOpenPulls(): Promise<PullRequest[]>;
  /** Every pull request (open or closed) from branch `head` of this repository, newest first. */
  listPullsFrom(head: string): Promise<PullRequest[]>;
  /** The most recently updated closed pull requests, newest first: one page, one request. */
  listRecentlyClosedPulls(): Promise<PullRequest[]>;
  /**
   * The pull requests commit `sha` belongs to (GitHub's "pull requests associated with a commit"): for a
   * commit of the default branch, the merged one that brought it there, whose merge commit it may be.
   */
  listPullsOfCommit(sha: string): Promise<PullRequest[]>;
  createPull(input: {
    head: string;
    base: string;
    title: string;
    body: string;
    draft?: boolean;
  }): Promise<PullRequest>;
  updatePull(
    number: number,
    input: { title?: string; body?: string; state?: "open" | "closed" },
  ): Promise<void>;
  /**
   * Merges only if the head is still `sha` (GitHub refuses otherwise, a `conflict`): the reviewed content
   * is what merges. A merge GitHub refuses otherwise is a MergeRefused naming why (errors.ts).
   */
  mergePull(
    number: number,
    input: { sha: string; method: "merge" | "squash" | "rebase"; title?: string; message?: string },
  ): Promise<string>;
  listReviews(number: number): Promise<Review[]>;
  addLabels(issue: number, labels: string[]): Promise<void>;
  removeLabel(issue: number, label: string): Promise<void>;
}

/** Comments, reactions and issues: what porchlight says in a repository. */
export interface RepoConversation extends RepoRole {
  /** Finds the comment carrying `marker` and edits it, or creates it; never duplicates. */
  ensureComment(
    issue: number,
    marker: string,
    body: string,
  ): Promise<{ id: number; action: "created" | "updated" | "unchanged" }>;
  createComment(issue: number, body: string): Promise<number>;
  /** Every comment of an issue or pull request, oldest first. */
  listComments(issue: number): Promise<IssueComment[]>;
  /** The first comment carrying `marker`, or undefined. */
  findComment(issue: number, marker: string): Promise<{ id: number; body: string } | undefined>;
  react(commentId: number, content: "eyes" | "+1" | "-1" | "rocket" | "confused"): Promise<void>;

  /** The open issue labelled `label` whose body carries `marker`, with its body and labels; undefined when none. */
  findIssue(input: {
    label: string;
    marker: string;
  }): Promise<{ number: number; body: string; labels: string[] } | undefined>;
  /**
   * Finds the open issue labelled `label` whose body carries `marker` and edits it, or opens it; never
   * duplicates, and an equal body is not written.
   */
  ensureIssue(input: {
    marker: string;
    label: string;
    title: string;
    body: string;
  }): Promise<{ number: number; action: "created" | "updated" | "unchanged" }>;
}

/** Check runs and commit statuses. */
export interface RepoChecks extends RepoRole {
  /**
   * The check runs of `headSha`. With `own`, only the app's own runs of those names are asked about: the
   * answer may then come from what this process last listed of the commit and wrote there since (no
   * request; own-check-runs.ts), and holds only those runs.
   */
  listCheckRuns(headSha: string, own?: readonly string[]): Promise<CheckRunState[]>;
  /**
   * The latest commit status of each context on `sha` (CI that reports statuses, not check runs), as
   * check states named by their context: pending is in progress; success passes; failure and error fail.
   */
  listCommitStatuses(sha: string): Promise<CheckRunState[]>;
  /** Creates the run for (name, headSha) or updates the existing one; annotations go 50 per call. */
  upsertCheckRun(input: CheckRunInput): Promise<number>;
}

/** Who may do what in the repository. */
export interface RepoAccess extends RepoRole {
  permissionOf(user: string): Promise<Permission>;
  /**
   * The logins who may push to the repository (write, maintain or admin: collaborators, its teams' and its
   * organisation's members with such access), as GitHub lists its collaborators.
   */
  writers(): Promise<string[]>;
}

export interface RepoPort
  extends RepoFiles,
    RepoPushes,
    RepoPulls,
    RepoConversation,
    RepoChecks,
    RepoAccess {}

export interface IssueComment {
  id: number;
  author: string;
  /** Written by an app or another bot account. */
  bot: boolean;
  body: string;
  /** When it was written, and last edited (equal when never edited): ISO 8601, to the second, as GitHub's. */
  createdAt: string;
  updatedAt: string;
}

/** A commit of a history: its message, and its author's email and date (`%ae`, `%aI`). */
export interface HistoryCommit {
  sha: string;
  message: string;
  authorEmail: string;
  authorDate: Date;
}

export interface CommitInfo {
  sha: string;
  author: CommitAuthor;
}

/** A repository the app's installation can reach, as fan-out selects and names them. */
export interface InstallationRepository {
  id: RepoId;
  /** `owner/name`. */
  fullName: string;
  topics: string[];
  defaultBranch: string;
  cloneUrl: string;
  archived: boolean;
  /** Whether only those granted access may read it (unknown where the answer did not say: taken as private). */
  private?: boolean;
}

/** The installation as a whole: its repositories, and the door to each. */
export interface InstallationPort {
  /** Every repository of the installation, with topics (one paginated REST listing). */
  listRepositories(): Promise<InstallationRepository[]>;
  /** The RepoPort of one of them (the same instance for the same repository). */
  repo(repository: InstallationRepository): RepoPort;
  /** One repository the installation reaches, by name (`GET /repos/{owner}/{repo}`). */
  repository(id: RepoId): Promise<InstallationRepository>;
  /**
   * A file's text at the default branch of a repository the installation can read (its own, the
   * organisation's `.github`, one an `_extends` names): undefined when the file or the repository is
   * not there (GitHub answers 404 for both); anything else is a GitHubError.
   */
  readFile(file: RepoId & { path: string }): Promise<string | undefined>;
}

/** The app's own name and id (`GET /app`), from which its bot login and commit author follow. */
export interface AppIdentity {
  id: number;
  slug: string;
}

export type InstallationAccess = { ok: true } | { ok: false; status: number; reason: string };

/**
 * The app as a whole, with its own key (JWT): who it is, where it is installed, and the door to each
 * installation. Only the hosted app has one; the Action and the command line start from a token.
 */
export interface AppPort {
  identity(): Promise<AppIdentity>;
  /** Every installation of the app (a paginated listing). */
  installationIds(): Promise<number[]>;
  /** The installation that covers a repository (`GET /repos/{owner}/{repo}/installation`). */
  installationIdOf(repo: RepoId): Promise<number>;
  /** The installation on an account, organisation or user (`GET /users/{username}/installation`). */
  installationIdOfAccount(login: string): Promise<number>;
  /** A fresh door to one installation: one per job. */
  installation(id: number): Promise<InstallationPort>;
  /** Whether the app may act for installation `id` now (a webhook's installation is checked first). */
  access(id: number): Promise<InstallationAccess>;
}
