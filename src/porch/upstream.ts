import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitCommandError } from "../github/git-process.js";
import { GitRepo } from "../github/git-repo.js";
import { LOCAL_FENCE, serverFence } from "../github/upstream-fence.js";
import { unreachableKptText } from "../kpt/git-texts.js";
import { sourceKind } from "../kpt/source-ref.js";
import type { FileTree } from "../kpt/tree.js";
import type { RefInfo } from "../lifecycle/refs.js";
import { type EgressPolicy, egressFetch, UpstreamUnreachable } from "../sources/egress.js";
import { checkLocation } from "../sources/location.js";
import { dockerCredentials } from "../sources/oci/credentials.js";
import { openSourceUpstream, type SourceOptions } from "../sources/upstream.js";

/**
 * The upstream git repository of a `pkg get` / `pkg update` / `pkg diff` and of the engine's `clone` and
 * `upgrade` (an OCI image or a tarball through src/sources), read through GitRepo into a throwaway
 * cache: refs resolved as kpt resolves them (a `<directory>/<ref>` tag first, for the package's directory
 * and then each one above it, then a tag, a branch, a commit), directories read at a commit. Nothing is
 * written outside the cache.
 */

/** A problem with the upstream the user can act on (unreachable, no such ref or directory). */
export class UpstreamError extends Error {
  /** kpt's words for the same failure (its error resolver's, without `Error: `), where kpt has some. */
  readonly kptText?: string;

  constructor(message: string, kptText?: string) {
    super(message);
    this.name = "UpstreamError";
    if (kptText !== undefined) this.kptText = kptText;
  }
}

interface ResolvedRef {
  commit: string;
  /** The ref as resolved, as kpt records it in upstreamLock (e.g. `pkg/v1` for `v1`). */
  resolvedRef: string;
}

export interface Upstream {
  /** The repository as the Kptfile records it. */
  repo: string;
  defaultBranch(): Promise<string>;
  resolve(ref: string, directory: string): Promise<ResolvedRef>;
  /** The files below `directory` at `commit` (relative paths); empty when the directory does not exist. */
  read(commit: string, directory: string): Promise<FileTree>;
  close(): Promise<void>;
}

const HEX = /^[0-9a-f]{4,40}$/;

function trimDir(directory: string): string {
  return directory.replace(/^\/+|\/+$/g, "");
}

function cause(err: unknown): string {
  if (err instanceof GitCommandError) {
    const lines = err.stderr.trim().split("\n").filter(Boolean);
    return lines.slice(-2).join(" / ") || err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** How non-git upstreams are reached: the environment for registry credentials, and test seams. */
export interface UpstreamOptions extends SourceOptions {
  env?: NodeJS.ProcessEnv;
  /**
   * Told each symbolic link of a git upstream's package, which is not copied: kpt copies a package
   * from a checkout and passes links over ("Ignoring symlink"), so a link is neither followed nor
   * written as a file holding its target's path.
   */
  onSymlink?: (path: string) => void;
  /**
   * The egress policy a fetch made for someone else keeps to (rpkg's clone and upgrade, which Porch's API
   * server runs): `repo` judged before anything connects (src/sources/location.ts; a refusal is
   * EgressRefused, its message led by `field`), git kept to https (upstream-fence.ts), images and
   * tarballs fetched through the policy. Without it, the command line's own fetch (`pkg get` on the
   * user's machine) reads what kpt reads, a local path too.
   */
  egress?: {
    policy: EgressPolicy;
    field: string;
    /** Told each upstream that could not be reached, with what git said as its `cause` (the server's log). */
    report?: ((failure: UpstreamUnreachable) => void) | undefined;
  };
}

/**
 * Opens `repo`: an `oci://` repository or a tarball URL through src/sources, else a git repository (a
 * URL or a path; `<repo>.git` is tried too, as kpt records repositories without it).
 */
export async function openUpstream(repo: string, opts: UpstreamOptions = {}): Promise<Upstream> {
  const { egress } = opts;
  const judged = egress && (await checkLocation(egress.policy, repo, egress.field));
  if (sourceKind(repo)) {
    const { env, egress: _policy, ...rest } = opts;
    return openSourceUpstream(repo, {
      credentials: dockerCredentials(env ?? process.env),
      ...(egress ? { fetch: egressFetch(egress.policy) } : {}),
      ...rest,
    });
  }
  // git is given the URL as judged; the Kptfile records `repo` as written
  const fence = judged ? serverFence(judged.url, judged.addresses) : LOCAL_FENCE;
  const address = judged ? judged.url.href : repo;
  const cache = await mkdtemp(join(tmpdir(), "porchlight-upstream-"));
  let firstError: unknown;
  for (const url of address.endsWith(".git") ? [address] : [address, `${address}.git`]) {
    try {
      const git = GitRepo.upstream(url, cache, fence);
      const refs = await git.lsRemote();
      return upstreamOver(repo, git, refs, cache, opts.onSymlink);
    } catch (err) {
      firstError ??= err;
    }
  }
  await rm(cache, { recursive: true, force: true });
  // a server's fetch says one thing whatever git met on the way (libcurl's words tell open ports from
  // closed ones); what git said goes to whoever runs the engine, for its log
  if (egress) {
    const failure = new UpstreamUnreachable(`upstream repository "${repo}"`, firstError);
    egress.report?.(failure);
    throw failure;
  }
  throw new UpstreamError(
    `cannot reach upstream repository "${repo}": ${cause(firstError)}; check the repository URL or path and that git can clone it`,
    unreachableKptText(repo, firstError instanceof GitCommandError ? firstError.stderr : ""),
  );
}

function upstreamOver(
  repo: string,
  git: GitRepo,
  refs: RefInfo[],
  cache: string,
  onSymlink?: (path: string) => void,
): Upstream {
  const has = (ref: string) => refs.some((r) => r.ref === ref);
  const commits = new Map<string, string>();
  let fetchedAll = false;
  const fetchAll = async () => {
    if (!fetchedAll) await git.fetchAll();
    fetchedAll = true;
  };
  const ensureCommit = async (commit: string): Promise<string> => {
    const known = commits.get(commit);
    if (known) return known;
    let full: string | undefined;
    if (/^[0-9a-f]{40}$/.test(commit)) full = await git.fetch(commit).catch(() => undefined);
    if (!full) {
      await fetchAll();
      full = await git.resolveCommit(commit);
    }
    if (!full) {
      throw new UpstreamError(`commit ${commit} does not exist in upstream repository "${repo}"`);
    }
    commits.set(commit, full);
    return full;
  };
  return {
    repo,
    async defaultBranch() {
      const head = await git.defaultBranch().catch(() => undefined);
      if (head) return head;
      const first = refs.find((r) => r.ref.startsWith("refs/heads/"));
      return first ? first.ref.slice("refs/heads/".length) : "main";
    },
    async resolve(ref, directory) {
      // kpt tries a tag `DIR/REF` for the package's directory, then for each directory above it
      const parts = trimDir(directory).split("/").filter(Boolean);
      const packageTags = parts.map((_, i): [string, string] => {
        const tag = `${parts.slice(0, parts.length - i).join("/")}/${ref}`;
        return [`refs/tags/${tag}`, tag];
      });
      const candidates: [string, string][] = [
        ...packageTags,
        [`refs/tags/${ref}`, ref],
        [`refs/heads/${ref}`, ref],
      ];
      for (const [full, resolvedRef] of candidates) {
        if (has(full)) return { commit: await git.fetch(full), resolvedRef };
      }
      if (HEX.test(ref)) {
        // kpt records a commit ref as it was given, abbreviated or not
        await ensureCommit(ref).catch(() => {
          throw new UpstreamError(noSuchRef(repo, ref, refs), unknownRefKptText(repo, ref));
        });
        return { commit: ref, resolvedRef: ref };
      }
      throw new UpstreamError(noSuchRef(repo, ref, refs), unknownRefKptText(repo, ref));
    },
    async read(commit, directory) {
      const full = await ensureCommit(commit);
      const { tree, symlinks } = await git.readFiles(full, trimDir(directory));
      for (const link of symlinks) {
        tree.delete(link);
        onSymlink?.(link);
      }
      return tree;
    },
    close: () => rm(cache, { recursive: true, force: true }),
  };
}

function unknownRefKptText(repo: string, ref: string): string {
  return `Unknown ref "${ref}". Please verify that the reference exists in upstream repo "${repo}".`;
}

function noSuchRef(repo: string, ref: string, refs: RefInfo[]): string {
  const names = (prefix: string) =>
    refs
      .filter((r) => r.ref.startsWith(prefix) && !r.ref.endsWith("^{}"))
      .map((r) => r.ref.slice(prefix.length))
      .slice(0, 10);
  const branches = names("refs/heads/");
  const tags = names("refs/tags/");
  return (
    `ref "${ref}" does not exist in upstream repository "${repo}": no branch, tag or commit has that name` +
    ` (branches: ${branches.join(", ") || "none"}; tags: ${tags.join(", ") || "none"})`
  );
}
