import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { FileTree } from "../kpt/tree.js";
import { annotateMessage, annotationForBranch } from "../lifecycle/kpt-trailer.js";
import type { RefInfo } from "../lifecycle/refs.js";
import {
  blobId,
  commitAsGitWrites,
  fastImportBlobs,
  PACK_FROM,
  parseTree,
  TREE_MODE,
  type TreeItem,
  writeBlob,
  writeCommit,
  writeTree,
  writeTrees,
} from "./git-objects.js";
import { GitCommandError } from "./git-process.js";
import { type AuthEnv, CacheClone } from "./git-repo/clone.js";
import {
  changedPaths,
  changedPathsKnown,
  commitTime,
  history,
  log,
  parentChange,
  resolveCommit,
} from "./git-repo/commits.js";
import { fetchAll, fetchRef } from "./git-repo/fetch.js";
import type { InProcessUse } from "./git-repo/in-process.js";
import { commitMessages } from "./git-repo/messages.js";
import { NotV2Servers } from "./git-repo/not-v2.js";
import { defaultBranch, deleteRefIf, listRefs } from "./git-repo/refs.js";
import { remote } from "./git-repo/remote.js";
import { keepTip } from "./git-repo/tips.js";
import { TreeReader } from "./git-repo/trees.js";
import type { GitObjectCache } from "./object-cache.js";
import type { FileEntry, HistoryCommit, PushResult, RepoPushes } from "./port.js";

/** What GitRepo.commitTree commits: the port's (`tree` as the content of `dir` on top of `parent`). */
type CommitInput = Parameters<RepoPushes["commitTree"]>[0];

/** The commit's message: with the kpt annotation its branch implies (or the one given; none for null). */
function commitMessage(input: CommitInput): string {
  const kpt = input.kpt === null ? undefined : (input.kpt ?? annotationForBranch(input.branch));
  return kpt ? annotateMessage(input.message, kpt) : input.message;
}

/**
 * A repository's content, through git: a bare cache clone per repository under `cacheDir`, fetched
 * from `url` with a fresh token on every network call. All of porchlight's git runs through
 * git-process.ts's runGit — these cache clones, worktree.ts's questions about a user's checkout, the
 * Action's changed-packages and `porchlight catalog --repo` — except the forge's, which keeps a runner
 * of its own as it plays GitHub's server side (bare repositories, http-backend); git-objects.ts writes
 * blobs without git at all.
 */
export class GitRepo {
  private readonly clone: CacheClone;
  /** What is asked in this process (the servers left to git: the app's, kept in its GitObjectCache). */
  private readonly use: InProcessUse;
  private readonly trees: TreeReader;

  constructor(
    private readonly url: string,
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
     * Fetch a branch the clone already holds an earlier commit of in this process over smart HTTP
     * (git-fetch-http.ts) when the URL is http(s), git writing only the pack; anything unusual (a
     * server without protocol v2, a refused request, an answer not understood) is fetched by `git fetch`.
     */
    fetchInProcess = true,
  ) {
    this.clone = new CacheClone(url, cacheDir, authEnv, blobs, shallow);
    this.trees = new TreeReader(this.clone);
    this.use = { refsOnly: refsInProcess, fetch: fetchInProcess, notV2: blobs?.notV2 ?? new NotV2Servers() };
  }

  /** All branches and tags of the remote, in one request (refs.ts). */
  lsRemote(): Promise<RefInfo[]> {
    return listRefs(this.clone, this.use);
  }

  /** The branch the remote's HEAD names, or undefined when the remote does not say (`pkg get` without a ref). */
  defaultBranch(): Promise<string | undefined> {
    return defaultBranch(this.clone);
  }

  /** Deletes `ref` (a full name) only while it still points at `sha`: a compare-and-swap (refs.ts). */
  deleteRefIf(ref: string, sha: string): Promise<"deleted" | "gone" | "moved"> {
    return deleteRefIf(this.clone, this.use, ref, sha);
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
    return commitMessages(this.clone, shas);
  }

  /** Up to `limit` commits reachable from `head` (a commit this clone has), newest first by committer date. */
  history(head: string, limit: number): Promise<HistoryCommit[]> {
    return history(this.clone, head, limit);
  }

  /** The committer date of `sha`. */
  commitTime(sha: string): Promise<Date> {
    return commitTime(this.clone, sha);
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

  /**
   * Commits `tree` as the content of `dir` on top of `parent` and pushes it to `branch` without force.
   * The objects are written in this process (commitObjects) where it writes what git would; else the
   * tree is built in a throwaway index by git (commitWithIndex).
   */
  async commitTree(input: CommitInput): Promise<PushResult> {
    await this.clone.init();
    const message = commitMessage(input);
    const made = (await this.commitObjects(input, message)) ?? (await this.commitWithIndex(input, message));
    if (made === "unchanged") return { ok: false, reason: "unchanged" };
    return this.pushCommit(input, made);
  }

  /**
   * The commit written in this process: the new blobs (as loose objects, or one pack from PACK_FROM on),
   * the trees of `dir` from the files' blob ids (a file keeps the parent's mode), each tree above it
   * with its entry replaced, and the commit object — as `write-tree` and `commit-tree` write them,
   * without the six git processes of an index (read-tree, ls-files, update-index, write-tree, rev-parse,
   * commit-tree). Undefined where git must make it: an author or message git would write otherwise, a
   * path of `dir` that is not a tree in the parent.
   */
  private async commitObjects(
    input: CommitInput,
    message: string,
  ): Promise<string | "unchanged" | undefined> {
    if (!commitAsGitWrites(input.author, message)) return undefined;
    const parts = input.dir === "" ? [] : input.dir.split("/");
    // the parent's trees along the path and its files in `dir`, asked at once
    const [chain, listed] = input.parent
      ? await Promise.all([this.treeChain(input.parent, parts), this.trees.entries(input.parent, input.dir)])
      : [{ root: undefined, trees: [] }, []];
    if (!chain) return undefined;
    const before = new Map(listed.map((e) => [e.path, e]));
    const written = await this.writeFiles(input, (rel) => before.get(rel));
    let child = await writeTrees(this.clone.gitDir, new Map(written.map((f) => [f.rel, f])));
    for (let k = parts.length - 1; k >= 0; k--) {
      const name = parts[k] ?? "";
      const items = (chain.trees[k] ?? []).filter((i) => i.name !== name);
      if (child) items.push({ mode: TREE_MODE, name, id: child });
      // a directory left with nothing is no tree (git keeps none empty), but the root is one
      child = items.length > 0 || k === 0 ? await writeTree(this.clone.gitDir, items) : undefined;
    }
    const tree = child ?? (await writeTree(this.clone.gitDir, []));
    if (input.parent && !input.allowEmpty && tree === chain.root) return "unchanged";
    const author = { ...input.author, seconds: Math.floor(Date.now() / 1000) };
    const commit = await writeCommit(this.clone.gitDir, { tree, parent: input.parent, author, message });
    this.clone.held(commit);
    return commit;
  }

  /**
   * The parent's root tree id, and the entries of its trees along `parts` (a directory's path): the
   * root's, then each directory's down to the one holding the last part (one `cat-file --batch`). A
   * directory the parent lacks has none (undefined, and so do those below it). Undefined where a part is
   * not a tree (a file).
   */
  private async treeChain(
    parent: string,
    parts: readonly string[],
  ): Promise<{ root: string; trees: (TreeItem[] | undefined)[] } | undefined> {
    const names = [
      `${parent}^{tree}`,
      ...parts.slice(0, -1).map((_, k) => `${parent}:${parts.slice(0, k + 1).join("/")}`),
    ];
    const out = await this.clone.git(["cat-file", "--batch"], `${names.join("\n")}\n`);
    const trees: (TreeItem[] | undefined)[] = [];
    let root: string | undefined;
    let offset = 0;
    for (let k = 0; k < names.length; k++) {
      const nl = out.indexOf(10, offset);
      const header = out.toString("utf8", offset, nl);
      offset = nl + 1;
      if (header.endsWith(" missing")) {
        if (k === 0) return undefined;
        trees.push(undefined);
        continue;
      }
      const [id = "", type, size] = header.split(" ");
      if (type !== "tree") return undefined;
      const end = offset + Number(size);
      trees.push(parseTree(out.subarray(offset, end)));
      root ??= id;
      offset = end + 1;
    }
    return root === undefined ? undefined : { root, trees };
  }

  /**
   * Each file of `input.tree` with its blob id (the caller's, else hashed; its bytes kept by blob id for
   * the next job) and mode (the one `old` gives it in the parent, else a plain file's), `changed` where the
   * parent does not hold that blob there. Only what changed is written into the object store: loose
   * objects, or one pack by `git fast-import` from PACK_FROM on.
   */
  private async writeFiles(
    input: CommitInput,
    old: (rel: string) => { mode: string; id: string } | undefined,
  ): Promise<{ rel: string; mode: string; id: string; changed: boolean }[]> {
    const files = [...input.tree].map(([rel, bytes]) => {
      const id = input.blobIds?.get(rel) ?? blobId(bytes);
      this.clone.blobs?.set(this.clone.gitDir, id, bytes);
      const was = old(rel);
      return { rel, mode: was?.mode ?? "100644", id, changed: was?.id !== id, bytes };
    });
    const fresh = files.filter((f) => f.changed);
    if (fresh.length >= PACK_FROM)
      await this.clone.git(["fast-import", "--quiet"], fastImportBlobs(fresh.map((f) => f.bytes)));
    else for (const f of fresh) await writeBlob(this.clone.gitDir, f.bytes, f.id);
    return files;
  }

  /** The commit made by git in a throwaway index (where commitObjects cannot write it). */
  private async commitWithIndex(input: CommitInput, message: string): Promise<string | "unchanged"> {
    const index = join(this.clone.gitDir, `index-${process.pid}-${Math.random().toString(36).slice(2)}`);
    try {
      return await this.commitInIndex(input, message, { GIT_INDEX_FILE: index });
    } finally {
      await rm(index, { force: true });
    }
  }

  private async commitInIndex(
    input: CommitInput,
    message: string,
    env: Record<string, string>,
  ): Promise<string | "unchanged"> {
    const prefix = input.dir === "" ? "" : `${input.dir}/`;
    if (input.parent) await this.clone.git(["read-tree", input.parent], undefined, env);
    else await this.clone.git(["read-tree", "--empty"], undefined, env);
    const existing = (await this.clone.git(["ls-files", "-z", "--stage"], undefined, env))
      .toString("utf8")
      .split("\0")
      .filter(Boolean)
      .map((l) => ({ mode: l.slice(0, 6), id: l.slice(7, 47), path: l.slice(l.indexOf("\t") + 1) }))
      .filter((e) => e.path.startsWith(prefix));
    const before = new Map(existing.map((e) => [e.path, e]));
    const lines: string[] = [];
    for (const e of existing)
      if (!input.tree.has(e.path.slice(prefix.length))) lines.push(`0 ${"0".repeat(40)}\t${e.path}`);
    for (const f of await this.writeFiles(input, (rel) => before.get(`${prefix}${rel}`)))
      if (f.changed) lines.push(`${f.mode} ${f.id}\t${prefix}${f.rel}`);
    if (lines.length === 0 && input.parent && !input.allowEmpty) return "unchanged";
    await this.clone.git(["update-index", "-z", "--index-info"], lines.map((l) => `${l}\0`).join(""), env);
    const treeSha = (await this.clone.git(["write-tree"], undefined, env)).toString("utf8").trim();
    if (input.parent && !input.allowEmpty) {
      const parentTree = (await this.clone.git(["rev-parse", `${input.parent}^{tree}`]))
        .toString("utf8")
        .trim();
      if (parentTree === treeSha) return "unchanged";
    }
    const who = input.author;
    const commitEnv = {
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
    };
    const args = ["commit-tree", treeSha, "-F", "-"];
    if (input.parent) args.push("-p", input.parent);
    const commit = (await this.clone.git(args, message, commitEnv)).toString("utf8").trim();
    this.clone.held(commit);
    return commit;
  }

  /** Pushes `commit` to the branch (with a lease where it replaces a commit), never with force. */
  private async pushCommit(input: CommitInput, commit: string): Promise<PushResult> {
    try {
      const ref = `refs/heads/${input.branch}`;
      const lease = input.replaces ? [`--force-with-lease=${ref}:${input.replaces}`] : [];
      const out = await remote(this.clone, [
        "push",
        input.exclusive ? "--porcelain" : "--quiet",
        ...lease,
        this.url,
        `${commit}:${ref}`,
      ]);
      // `=`: the branch was already at this very commit — another request pushed the same (a commit is
      // the same to the second when its tree, parent, message, author and time are)
      if (input.exclusive && /^=\t/m.test(out.toString("utf8")))
        return { ok: false, reason: "non-fast-forward" };
    } catch (e) {
      // (with --porcelain the reason is on stdout; stderr says only that the push failed)
      if (
        e instanceof GitCommandError &&
        /non-fast-forward|fetch first|rejected|stale info|failed to push some refs/.test(e.stderr)
      ) {
        return { ok: false, reason: "non-fast-forward" };
      }
      throw e;
    }
    await keepTip(this.clone.gitDir, `refs/heads/${input.branch}`, commit);
    return { ok: true, sha: commit };
  }
}
