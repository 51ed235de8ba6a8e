import type { FileTree } from "../kpt/tree.js";
import type { RefInfo } from "../lifecycle/refs.js";
import { GitCommandError } from "./git-process.js";
import { type AuthEnv, CacheClone, COMMIT_ID } from "./git-repo/clone.js";
import { type CommitInput, commitTree } from "./git-repo/commit.js";
import {
  addedAt,
  changedPaths,
  changedPathsKnown,
  commitTime,
  history,
  lastChanges,
  log,
  parentChange,
  resolveCommit,
} from "./git-repo/commits.js";
import { fetchAll, fetchRef } from "./git-repo/fetch.js";
import type { InProcessUse } from "./git-repo/in-process.js";
import { commitMessages } from "./git-repo/messages.js";
import { NotV2Servers } from "./git-repo/not-v2.js";
import { defaultBranch, deleteBranch, deleteRefIf, headCommit, listRefs } from "./git-repo/refs.js";
import { createTag, type Dropping, type TagPush } from "./git-repo/tag.js";
import { TreeReader } from "./git-repo/trees.js";
import type { GitObjectCache } from "./object-cache.js";
import type { FileEntry, HistoryCommit, PushResult } from "./port.js";
import { fenceEnv, type UpstreamFence } from "./upstream-fence.js";

/**
 * A repository's content, through git: a bare cache clone per repository under `cacheDir`, fetched
 * from `url` with a fresh token on every network call. All of porchlight's git runs through
 * git-process.ts's runGit — these cache clones, worktree.ts's questions about a user's checkout, the
 * Action's changed-packages and `porchlight catalog --repo` — except the forge's, which keeps a runner
 * of its own as it plays GitHub's server side (bare repositories, http-backend); git-objects.ts writes
 * blobs without git at all.
 *
 * A facade: each method is a function of git-repo/, over the clone (clone.ts), its trees' reader
 * (trees.ts) and what is asked in this process (in-process.ts); docs/architecture.md's rooms name them.
 */
export class GitRepo {
  private readonly clone: CacheClone;
  /** What is asked in this process (the servers left to git: the app's, kept in its GitObjectCache). */
  private use: InProcessUse;
  private readonly trees: TreeReader;

  constructor(
    url: string,
    cacheDir: string,
    /** git's credentials; `renew`: the last ones were refused (an expired token), get new ones. */
    authEnv: AuthEnv,
    /** Files' bytes by blob id, kept across jobs (the app's): blobs found there are not read from git. */
    blobs?: GitObjectCache,
    /**
     * Fetch a commit alone, not its history (`--depth=1`), as kpt fetches an upstream: `pkg get` of a
     * large repository reads one commit's tree. Asking for every branch (an abbreviated commit) then
     * fetches the whole history.
     */
    shallow = false,
    /**
     * List the refs in this process over smart HTTP (git-refs-http.ts) when the URL is http(s), and
     * never with `git ls-remote`: the command line's clone, made for one command, which is made only
     * when git first runs in it. Else (the app's) the listing is asked of git where the request fails.
     */
    refsInProcess = false,
    /**
     * Fetch a branch the clone already holds an earlier commit of (and commits by their ids), and push,
     * in this process over smart HTTP (git-fetch-http.ts, git-push-http.ts) when the URL is http(s), git
     * writing only the pack; anything unusual (a server without protocol v2, a refused request, an
     * answer not understood) is fetched by `git fetch`, pushed by `git push`.
     */
    fetchInProcess = true,
  ) {
    this.clone = new CacheClone(url, cacheDir, authEnv, blobs, shallow);
    this.trees = new TreeReader(this.clone);
    this.use = {
      refsOnly: refsInProcess,
      transfer: fetchInProcess,
      notV2: blobs?.notV2 ?? new NotV2Servers(),
    };
  }

  /**
   * A clone of a repository a caller named (an upstream), one commit deep as kpt fetches one: no
   * credentials, git kept within `fence` (upstream-fence.ts) on every command that reaches the remote, and
   * nothing asked over HTTP in this process, where the fence would not hold.
   */
  static upstream(url: string, cacheDir: string, fence: UpstreamFence): GitRepo {
    if (url.startsWith("-"))
      throw new GitCommandError(
        ["ls-remote"],
        null,
        `"${url}" is no repository: git would read it as an option`,
        "not-found",
      );
    const env = fenceEnv(fence);
    const repo = new GitRepo(url, cacheDir, async () => env, undefined, true, false, false);
    repo.use = { ...repo.use, fenced: true };
    return repo;
  }

  /** All branches and tags of the remote, in one request (refs.ts). */
  lsRemote(): Promise<RefInfo[]> {
    return listRefs(this.clone, this.use);
  }

  /** The commit the remote's default branch is at, in one request (refs.ts headCommit). */
  headCommit(): ReturnType<typeof headCommit> {
    return headCommit(this.clone, this.use);
  }

  /** The branch the remote's HEAD names, or undefined when the remote does not say (`pkg get` without a ref). */
  defaultBranch(): Promise<string | undefined> {
    return defaultBranch(this.clone);
  }

  /** Deletes `ref` (a full name) only while it still points at `sha`: a compare-and-swap (refs.ts). */
  deleteRefIf(ref: string, sha: string): Promise<"deleted" | "gone" | "moved"> {
    return deleteRefIf(this.clone, this.use, ref, sha);
  }

  /** Deletes branch `name` by a push (refs.ts). */
  deleteBranch(name: string): ReturnType<typeof deleteBranch> {
    return deleteBranch(this.clone, this.use, name);
  }

  /** Creates tag `tag` on `commit` by a push, with `dropping` deleting that branch in it (tag.ts). */
  createTag(tag: string, commit: string, dropping?: Dropping): Promise<TagPush> {
    return createTag(this.clone, this.use, tag, commit, dropping);
  }

  /** Makes `ref` (a branch or tag name, a full ref, or a commit SHA) available locally; returns its commit. */
  fetch(ref: string): Promise<string> {
    return fetchRef(this.clone, this.use, ref);
  }

  /** Fetches every branch and tag, for commits the remote does not serve by name (abbreviated SHAs). */
  fetchAll(): Promise<void> {
    return fetchAll(this.clone);
  }

  /** The files of commit `sha` below `dir` ("" = all) with their sizes, from the tree alone (no blob is read). */
  listFiles(sha: string, dir = ""): Promise<FileEntry[]> {
    return this.trees.listFiles(sha, dir);
  }

  /** The files of commit `sha` below `dir` ("" = all), with their blob ids and symbolic links (trees.ts). */
  readFiles(
    sha: string,
    dir = "",
  ): Promise<{ tree: FileTree; blobs: Map<string, string>; symlinks: string[] }> {
    return this.trees.readFiles(sha, dir);
  }

  /** The files of commit `sha` below `dir` ("" = all), paths relative to `dir`. */
  async readTree(sha: string, dir = ""): Promise<FileTree> {
    return (await this.trees.readFiles(sha, dir)).tree;
  }

  /**
   * The text of file `path` at commit `sha` when this clone holds that commit (none where the commit
   * has no such regular file), or null when the clone lacks the commit: read by git, nothing fetched.
   */
  async heldFile(sha: string, path: string): Promise<string | undefined | null> {
    if (!COMMIT_ID.test(sha)) return null;
    const { gitDir, blobs } = this.clone;
    // asked before, of this clone: no git process
    let blob = blobs?.file(gitDir, sha, path);
    if (blob === undefined) {
      if (!(this.clone.holds(sha) || (await this.clone.hasCommit(sha)))) return null;
      this.clone.held(sha);
      // a path git does not take as one (a leading slash…): asked of GitHub as given
      const listed = await this.clone.git(["ls-tree", "-z", sha, "--", path]).then(
        (b) => b.toString("utf8"),
        () => null,
      );
      if (listed === null) return null;
      // `MODE TYPE ID\tPATH`: a regular file's blob, as GitHub's contents API answers only files
      const m = /^(100644|100755) blob ([0-9a-f]{40})\t/.exec(listed);
      blob = m ? { id: m[2] as string } : null;
      blobs?.setFile(gitDir, sha, path, blob);
    }
    if (blob === null) return undefined;
    const kept = blobs?.get(gitDir, blob.id);
    if (kept) return kept.toString("utf8");
    const bytes = await this.clone.git(["cat-file", "blob", blob.id]);
    blobs?.set(gitDir, blob.id, bytes);
    return bytes.toString("utf8");
  }

  /** The paths below `dir` (relative to it) of commit `sha` that are symbolic links (mode 120000). */
  symlinks(sha: string, dir = ""): Promise<string[]> {
    return this.trees.symlinks(sha, dir);
  }

  /** The full SHA of the fetched commit `rev` names (e.g. an abbreviated SHA), or undefined. */
  resolveCommit(rev: string): Promise<string | undefined> {
    return resolveCommit(this.clone, rev);
  }

  /** The commits of fetched `head` not reachable from fetched `base`, newest first, with their authors. */
  log(base: string, head: string): Promise<{ sha: string; name: string; email: string }[]> {
    return log(this.clone, base, head);
  }

  /** The messages of commits `shas`, fetched first where this clone lacks them (messages.ts). */
  commitMessages(shas: readonly string[]): Promise<Map<string, string>> {
    return commitMessages(this.clone, this.use, shas);
  }

  /** Up to `limit` commits reachable from `head` (a commit this clone has), newest first by committer date. */
  history(head: string, limit: number): Promise<HistoryCommit[]> {
    return history(this.clone, head, limit);
  }

  /** The committer date of `sha`. */
  commitTime(sha: string): Promise<Date> {
    return commitTime(this.clone, sha);
  }

  /** When each file below `dir` was last added in the history of fetched `head`. */
  addedAt(head: string, dir: string): Promise<Map<string, Date>> {
    return addedAt(this.clone, head, dir);
  }

  /** Each directory's last change in the history of fetched `head` (after fetched `since`, where given). */
  lastChanges(head: string, dirs: readonly string[], since?: string): Promise<Map<string, string>> {
    return lastChanges(this.clone, head, dirs, since);
  }

  /** The paths `head` changes since its merge base with `base`: both commits fetched, named by their ids. */
  changedPaths(base: string, head: string): Promise<string[]> {
    return changedPaths(this.clone, base, head);
  }

  /** changedPaths' answer for two commit ids asked before (in any job), with nothing fetched or run. */
  changedPathsKnown(base: string, head: string): string[] | undefined {
    return changedPathsKnown(this.clone, base, head);
  }

  /** The first parent of fetched commit `sha` and the paths below `dir` (relative to it) it changed. */
  parentChange(sha: string, dir = ""): Promise<{ parent: string | null; paths: string[] }> {
    return parentChange(this.clone, sha, dir);
  }

  /** Commits `tree` as the content of `dir` on top of `parent` and pushes it to `branch` without force (commit.ts). */
  commitTree(input: CommitInput): Promise<PushResult> {
    return commitTree(this.clone, this.use, this.trees, input);
  }
}
