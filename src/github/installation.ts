import { cloneUrlFor, type DefaultBranchFiles } from "./default-branch-files.js";
import { GitHubError, mapGitHubErrors } from "./errors.js";
import { tokenAuthEnv } from "./git-process.js";
import { GitRepo } from "./git-repo.js";
import type { GitObjectCache } from "./object-cache.js";
import { OctokitRepo, type RestClient } from "./octokit-repo.js";
import type { OpenPulls } from "./open-pulls.js";
import type { OwnWrites } from "./own-writes.js";
import type { InstallationPort, InstallationRepository, RepoId, RepoPort } from "./port.js";
import { parseResponse, type RestRepository, restRepository } from "./responses.js";
import type { StopGate } from "./stop-gate.js";

/** A REST (or webhook payload) repository as the port names it. */
export function repositoryOf(r: RestRepository): InstallationRepository {
  return {
    id: { owner: r.owner?.login ?? (r.full_name.split("/")[0] as string), repo: r.name },
    fullName: r.full_name,
    topics: r.topics ?? [],
    defaultBranch: r.default_branch ?? "main",
    cloneUrl: r.clone_url,
    archived: Boolean(r.archived),
    ...(r.private === undefined ? {} : { private: r.private }),
  };
}

/**
 * The installation's door, for one job: its repositories (one paginated listing, read once per instance),
 * a file of any repository it reads, and one RepoPort per repository (the same instance for the same
 * repository, so a job has one adapter for its own repository however it reaches it): REST through the
 * Octokit, git over HTTPS with the token asked of `rest.auth` before each git call (so an expired
 * installation token is replaced), passed in git's environment, never in the URL. Nothing is kept
 * between jobs but the bare clones under `cacheDir` and, when given, files' bytes by blob id in
 * `blobs` (the app's, for its life): build one per job.
 */
export function installationPort(
  rest: RestClient,
  cacheDir: string,
  blobs?: GitObjectCache,
  /** Refs listed over HTTP in this process alone, never by `git ls-remote` (the command line: GitRepo's refsInProcess). */
  refsInProcess = false,
  /** The app's door at a stop: shut, no git command reaches GitHub (stop-gate.ts). */
  gate?: StopGate,
  /**
   * Default-branch files kept by commit for the app's life (default-branch-files.ts): a file is then read
   * over REST once per commit of its default branch, the commit asked of git. Absent: read every time.
   */
  files?: DefaultBranchFiles,
  /** The app's own check runs and comments this process listed and wrote (own-writes.ts); absent in a fleet. */
  own?: OwnWrites,
  /** The open pull requests of each repository as the API server knows them (open-pulls.ts). */
  pulls?: OpenPulls,
): InstallationPort {
  const ports = new Map<string, RepoPort>();
  let listing: Promise<InstallationRepository[]> | undefined;
  // `renew`: git was refused with the cached token (it expired before the cache let it go): a new one.
  const gitEnv = async (renew?: boolean) => {
    gate?.check("a git command to GitHub");
    const token = tokenOf(await rest.auth({ type: "installation", ...(renew ? { refresh: true } : {}) }));
    if (!token) throw new GitHubError("unauthorized", "no token to run git with");
    return tokenAuthEnv(token);
  };
  const call = mapGitHubErrors;
  /** The cache clone of `file`'s repository, where the REST base names the GitHub that serves it. */
  const gitOf = (file: RepoId) => {
    const base = (rest.request as { endpoint?: { DEFAULTS?: { baseUrl?: string } } }).endpoint?.DEFAULTS
      ?.baseUrl;
    return base
      ? new GitRepo(cloneUrlFor(base, file.owner, file.repo), cacheDir, gitEnv, blobs, false, refsInProcess)
      : undefined;
  };
  /** A file of the default branch (at `sha` when given) over REST; undefined when it does not exist. */
  const readRest = async (file: RepoId & { path: string }, sha: string | undefined) => {
    try {
      return await call(`reading ${file.path} in ${file.owner}/${file.repo}`, async () => {
        const { data } = await rest.request("GET /repos/{owner}/{repo}/contents/{path}", {
          owner: file.owner,
          repo: file.repo,
          path: file.path,
          ...(sha ? { ref: sha } : {}),
          mediaType: { format: "raw" },
        });
        if (typeof data !== "string")
          throw new GitHubError(
            "validation",
            `${file.owner}/${file.repo}:${file.path} is a directory, not a file`,
          );
        return data;
      });
    } catch (e) {
      if (e instanceof GitHubError && e.kind === "not-found") return undefined;
      throw e;
    }
  };
  return {
    listRepositories() {
      listing ??= call("listing the installation's repositories", async () => {
        const repos = await rest.paginate("GET /installation/repositories", { per_page: 100 });
        return parseResponse(restRepository.array(), repos, "listing the installation's repositories").map(
          repositoryOf,
        );
      }).catch((e) => {
        listing = undefined;
        throw e;
      });
      return listing;
    },
    repository(id: RepoId) {
      return call(`reading ${id.owner}/${id.repo}`, async () => {
        const { data } = await rest.request("GET /repos/{owner}/{repo}", { owner: id.owner, repo: id.repo });
        return repositoryOf(parseResponse(restRepository, data, `reading ${id.owner}/${id.repo}`));
      });
    },
    async readFile(file) {
      const git = files && gitOf(file);
      const at = git ? await git.headCommit().catch(() => undefined) : undefined;
      if (at?.kind === "missing") return undefined;
      const sha = at?.kind === "at" ? at.sha : undefined;
      if (!git || !sha) return readRest(file, sha);
      // a commit not read before (the default branch moved: a publish, a push): fetched into the cache
      // clone, which the job mostly fetches next anyway, and read there; over REST where git cannot
      return files.read(file, sha, async () => {
        const held = await git
          .fetch(sha)
          .then(() => git.heldFile(sha, file.path))
          .catch(() => null);
        return held === null ? readRest(file, sha) : held;
      });
    },
    repo(repository) {
      const key = repository.fullName.toLowerCase();
      let port = ports.get(key);
      if (!port) {
        port = new OctokitRepo(
          rest,
          repository.id,
          new GitRepo(repository.cloneUrl, cacheDir, gitEnv, blobs, false, refsInProcess),
          own,
          pulls,
        );
        ports.set(key, port);
      }
      return port;
    },
  };
}

/** The token in what Octokit's auth strategy answers (typed `unknown` by Octokit); none in anything else. */
function tokenOf(auth: unknown): string | undefined {
  return typeof auth === "object" && auth !== null && "token" in auth && typeof auth.token === "string"
    ? auth.token
    : undefined;
}
