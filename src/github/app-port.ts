import type { Probot } from "probot";
import type { DefaultBranchFiles } from "./default-branch-files.js";
import { mapGitHubErrors } from "./errors.js";
import { installationPort } from "./installation.js";
import { installationAccess } from "./installation-access.js";
import type { GitObjectCache } from "./object-cache.js";
import type { RestClient } from "./octokit-repo.js";
import type { OwnWrites } from "./own-writes.js";
import type { AppPort } from "./port.js";
import { parseResponse, restApp, restInstallation } from "./responses.js";
import type { StopGate } from "./stop-gate.js";

/**
 * The hosted app's door: probot authenticates as the app (JWT) or as one of its installations; every
 * failure comes out as a GitHubError naming what was asked.
 */
export function probotAppPort(
  probot: Probot,
  cacheDir: string,
  blobs?: GitObjectCache,
  /** Shut at a stop past its grace: no git command of the app reaches GitHub (stop-gate.ts). */
  gate?: StopGate,
  /** Default-branch files kept by commit for the app's life (default-branch-files.ts). */
  files?: DefaultBranchFiles,
  /** The app's own check runs and comments this process listed and wrote (own-writes.ts); absent in a fleet. */
  own?: OwnWrites,
): AppPort {
  const asApp = async (): Promise<RestClient> => probot.auth();
  const asInstallation = async (id: number): Promise<RestClient> => probot.auth(id);
  const call = mapGitHubErrors;
  return {
    identity: () =>
      call("reading the app (GET /app)", async () => {
        const { data } = await (await asApp()).request("GET /app");
        const app = parseResponse(restApp, data, "reading the app (GET /app)");
        return { id: app?.id ?? 0, slug: app?.slug ?? "porchlight" };
      }),
    installationIds: () =>
      call("listing the app's installations", async () => {
        const all = await (await asApp()).paginate("GET /app/installations", { per_page: 100 });
        return parseResponse(restInstallation.array(), all, "listing the app's installations").map(
          (i) => i.id,
        );
      }),
    installationIdOf: (repo) =>
      call(`finding the installation of ${repo.owner}/${repo.repo}`, async () => {
        const { data } = await (await asApp()).request("GET /repos/{owner}/{repo}/installation", {
          owner: repo.owner,
          repo: repo.repo,
        });
        return parseResponse(restInstallation, data, `finding the installation of ${repo.owner}/${repo.repo}`)
          .id;
      }),
    installationIdOfAccount: (login) =>
      call(`finding the installation on ${login}`, async () => {
        const { data } = await (await asApp()).request("GET /users/{username}/installation", {
          username: login,
        });
        return parseResponse(restInstallation, data, `finding the installation on ${login}`).id;
      }),
    installation: (id) =>
      call(`authenticating as installation ${id}`, async () =>
        installationPort(await asInstallation(id), cacheDir, blobs, false, gate, files, own),
      ),
    access: (id) =>
      installationAccess(id, async () => (await asInstallation(id)).auth({ type: "installation" })),
  };
}
