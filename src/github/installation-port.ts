import type { Octokit } from "@octokit/rest";
import { GitHubError, toGitHubError } from "./errors.js";
import { tokenAuthEnv } from "./git-process.js";
import { GitRepo } from "./git-repo.js";
import { OctokitRepo } from "./octokit-repo.js";
import type { InstallationPort, InstallationRepository, RepoPort } from "./port.js";

/** The part of an installation's Octokit (probot's context.octokit) the installation door needs. */
export interface InstallationOctokitLike {
  auth(options?: unknown): Promise<unknown>;
}

interface RestRepository {
  name: string;
  full_name: string;
  owner: { login: string };
  topics?: string[];
  default_branch?: string;
  clone_url: string;
  archived?: boolean;
}

/**
 * The installation as fan-out sees it: its repositories with topics (one paginated listing, read once per
 * instance) and a RepoPort per repository (REST through the installation's Octokit, git with a fresh
 * installation token in git's environment). One instance per job: nothing is kept between jobs.
 */
export function installationPort(octokit: InstallationOctokitLike, cacheDir: string): InstallationPort {
  const rest = octokit as unknown as Octokit;
  const ports = new Map<string, RepoPort>();
  let listing: Promise<InstallationRepository[]> | undefined;
  const authEnv = async () => {
    const auth = (await octokit.auth({ type: "installation" })) as { token?: string };
    if (!auth.token) throw new Error("no installation token");
    return tokenAuthEnv(auth.token);
  };
  return {
    listRepositories() {
      listing ??= (async () => {
        try {
          const repos = (await rest.paginate("GET /installation/repositories", {
            per_page: 100,
          })) as unknown as RestRepository[];
          return repos.map((r) => ({
            id: { owner: r.owner.login, repo: r.name },
            fullName: r.full_name,
            topics: r.topics ?? [],
            defaultBranch: r.default_branch ?? "main",
            cloneUrl: r.clone_url,
            archived: Boolean(r.archived),
          }));
        } catch (e) {
          listing = undefined;
          throw toGitHubError(e, "listing the installation's repositories");
        }
      })();
      return listing;
    },
    async readFile(file) {
      try {
        const { data } = await rest.request("GET /repos/{owner}/{repo}/contents/{path}", {
          owner: file.owner,
          repo: file.repo,
          path: file.path,
          mediaType: { format: "raw" },
        });
        if (typeof data !== "string") throw new Error(`${file.path} is a directory, not a file`);
        return data;
      } catch (e) {
        const err = toGitHubError(e, `reading ${file.path} in ${file.owner}/${file.repo}`);
        if (err instanceof GitHubError && err.kind === "not-found") return undefined;
        throw err;
      }
    },
    repo(repository) {
      let port = ports.get(repository.fullName);
      if (!port) {
        port = new OctokitRepo(rest, repository.id, new GitRepo(repository.cloneUrl, cacheDir, authEnv));
        ports.set(repository.fullName, port);
      }
      return port;
    },
  };
}
