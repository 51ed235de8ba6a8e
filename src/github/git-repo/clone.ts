import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGit } from "../git-process.js";
import type { GitObjectCache } from "../object-cache.js";

/** A commit named by its full id (SHA-1), not by a ref. */
export const COMMIT_ID = /^[0-9a-f]{40}$/;

/** git's credentials; `renew`: the last ones were refused (an expired token), get new ones. */
export type AuthEnv = (renew?: boolean) => Promise<Record<string, string>>;

/**
 * What `git init --bare` writes that git needs to take a directory for a bare repository, written here
 * without starting git (a command line's listing then starts none at all): the configuration, the object
 * and ref directories, then HEAD, by which git recognises a repository — last, so that a repository is
 * never seen half made. A file already there is left as it is (a clone made before, by git or by this).
 * Synchronous (a few small files, once a clone): the clone is whole when init() returns, so a command
 * that ends at once and removes its clone's directory never races with its making.
 */
function writeBareRepository(gitDir: string): void {
  for (const dir of ["objects/info", "objects/pack", "refs/heads", "refs/tags"])
    mkdirSync(join(gitDir, ...dir.split("/")), { recursive: true });
  const config = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n";
  for (const [name, text] of [
    ["config", config],
    ["HEAD", "ref: refs/heads/main\n"],
  ] as const) {
    try {
      writeFileSync(join(gitDir, name), text, { flag: "wx" });
    } catch (e) {
      if (!(e instanceof Error && "code" in e && e.code === "EEXIST")) throw e;
    }
  }
}

/**
 * A repository's bare cache clone under `cacheDir` (one directory a remote URL), made when first needed,
 * git run in it, and what it is known to hold. The rest of GitRepo's files are functions of one.
 */
export class CacheClone {
  readonly gitDir: string;
  private ready: Promise<void> | undefined;
  /** Commits this clone is known to hold (fetched or written by this instance): not asked of git again. */
  private readonly commits = new Set<string>();
  /**
   * The clone was made empty by this instance and nothing has been put in it since (a command line's
   * clone, made for one command): it holds no commit, so none is asked of git.
   */
  private empty = false;

  constructor(
    readonly url: string,
    cacheDir: string,
    readonly authEnv: AuthEnv,
    /** Files' bytes by blob id, kept across jobs (the app's): blobs found there are not read from git. */
    readonly blobs: GitObjectCache | undefined,
    /**
     * Fetch a commit alone, not its history (`--depth=1`), as kpt fetches an upstream: `pkg get` of a
     * large repository reads one commit's tree. Asking for every branch (an abbreviated commit) then
     * fetches the whole history.
     */
    readonly shallow: boolean,
  ) {
    this.gitDir = join(cacheDir, `${url.replace(/^[a-z]+:\/\//, "").replace(/[^A-Za-z0-9._-]+/g, "_")}.git`);
  }

  init(): Promise<void> {
    this.ready ??= this.make();
    return this.ready;
  }

  /**
   * Makes the clone where it is not there yet. Synchronous to the end (no `await`): two jobs opening one
   * repository at once (a fan-out reading a downstream while that downstream's own job runs) each have a
   * GitRepo of it, and the one that comes second finds the clone whole, its files never written twice at
   * once; a failed making is tried again by the next GitRepo.
   */
  private async make(): Promise<void> {
    const made = mkdirSync(this.gitDir, { recursive: true });
    writeBareRepository(this.gitDir);
    this.empty = made !== undefined;
  }

  /** Whether the clone is known to hold no commit at all (made empty by this instance, nothing put in since). */
  get isEmpty(): boolean {
    return this.empty;
  }

  /** Runs git in the clone, made first if it is not there yet (a command may need none: see listRefs). */
  async git(args: string[], input?: string | Buffer, env?: Record<string, string>): Promise<Buffer> {
    await this.init();
    if (args[0] !== "cat-file" && args[0] !== "ls-remote") this.empty = false;
    return runGit(args, { cwd: this.gitDir, input, env: { GIT_DIR: this.gitDir, ...env } });
  }

  /** Commit `sha` is in the clone (fetched, made, found): for this instance, and the app's other jobs. */
  held(sha: string): void {
    this.commits.add(sha);
    this.blobs?.setHolds(this.gitDir, sha);
  }

  /** Whether this instance, or another job within the hour (GitObjectCache), saw commit `sha` in the clone. */
  holds(sha: string): boolean {
    return this.commits.has(sha) || this.blobs?.holds(this.gitDir, sha) === true;
  }

  /**
   * Whether the clone holds commit `sha` whole: the commit and every tree and blob of its tree, which is
   * what a reader of it reads (none asked of a clone known empty; its parents are not walked, as a walk
   * down to what the clone's refs reach cost a pass over hundreds of refs at each question). The
   * commit object alone says too little: a fetch that writes a small pack as loose objects writes the
   * commit first and its trees and blobs after, so a commit found while another fetch unpacks it (or
   * left by a fetch that failed half-way) may lack them; a reader then met a blob "missing" (the fleet
   * bench: a revision's metadata file read as empty). A commit not whole is fetched again.
   */
  async hasCommit(sha: string): Promise<boolean> {
    if (this.empty) return false;
    try {
      await this.git(["rev-list", "--objects", "--no-walk", "--quiet", `${sha}^{commit}`]);
      return true;
    } catch {
      return false;
    }
  }
}
