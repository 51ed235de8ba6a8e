import type { Octokit } from "@octokit/rest";
import { tokenAuthEnv } from "./git-process.js";
import { GitRepo } from "./git-repo.js";
import { OctokitRepo } from "./octokit-repo.js";
import type { RepoId, RepoPort } from "./port.js";

/** The part of an installation's Octokit (probot's context.octokit) a RepoPort needs. */
export interface InstallationOctokit {
  auth(options?: unknown): Promise<unknown>;
}

/**
 * The RepoPort of a repository the app is installed on: REST through the installation's Octokit,
 * git over HTTPS at `cloneUrl` with the installation token (fetched fresh for every git call, so an
 * expired token is replaced) passed in git's environment, never in the URL.
 */
export function installationRepo(
  octokit: InstallationOctokit,
  id: RepoId,
  cloneUrl: string,
  cacheDir: string,
): RepoPort {
  const git = new GitRepo(cloneUrl, cacheDir, async () => {
    const auth = (await octokit.auth({ type: "installation" })) as { token?: string };
    if (!auth.token) throw new Error(`no installation token for ${id.owner}/${id.repo}`);
    return tokenAuthEnv(auth.token);
  });
  return new OctokitRepo(octokit as unknown as Octokit, id, git);
}
