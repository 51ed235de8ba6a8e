import { GitHubError } from "./errors.js";
import type { AppPort, InstallationPort, RepoId } from "./port.js";

/**
 * The installation that covers a repository, for a job that reaches past its own installation (fan-out
 * to a downstream in another organisation or account the app is installed on): undefined when the app is
 * not installed there (GitHub answers 404 to `GET /repos/{owner}/{repo}/installation`, for a repository
 * that does not exist as well); any other failure is the GitHubError the door raised.
 */
export type InstallationLookup = ((repo: RepoId) => Promise<InstallationPort | undefined>) & {
  /**
   * The installation on an account (organisation or user), for a selector that names repositories there
   * (`other/cluster-*`): undefined when the app is not installed on it. Absent where the app's key is not.
   */
  account?: (login: string) => Promise<InstallationPort | undefined>;
};

/**
 * A lookup for one job: each installation is opened once (one Octokit, one adapter per repository), however
 * many downstream repositories it covers.
 */
export function installationLookup(
  app: Pick<AppPort, "installationIdOf" | "installation"> & Partial<Pick<AppPort, "installationIdOfAccount">>,
): InstallationLookup {
  const opened = new Map<number, Promise<InstallationPort>>();
  const open = async (find: () => Promise<number>) => {
    let id: number;
    try {
      id = await find();
    } catch (e) {
      if (e instanceof GitHubError && e.kind === "not-found") return undefined;
      throw e;
    }
    let port = opened.get(id);
    if (!port) {
      port = app.installation(id);
      opened.set(id, port);
      port.catch(() => opened.delete(id));
    }
    return port;
  };
  const lookup: InstallationLookup = (repo) => open(() => app.installationIdOf(repo));
  const ofAccount = app.installationIdOfAccount;
  if (ofAccount) lookup.account = (login) => open(() => ofAccount(login));
  return lookup;
}
