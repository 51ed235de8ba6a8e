import type { Probot } from "probot";
import type { BlobCache } from "./blob-cache.js";
import { mapGitHubErrors } from "./errors.js";
import { type AuthenticatedOctokit, installationPort } from "./installation.js";
import { installationAccess } from "./installation-access.js";
import type { AppPort } from "./port.js";

interface AppRest {
  request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }>;
  paginate(route: string, params?: Record<string, unknown>): Promise<unknown[]>;
}

/**
 * The hosted app's door: probot authenticates as the app (JWT) or as one of its installations; every
 * failure comes out as a GitHubError naming what was asked.
 */
export function probotAppPort(probot: Probot, cacheDir: string, blobs?: BlobCache): AppPort {
  const asApp = async () => (await probot.auth()) as unknown as AppRest;
  const asInstallation = async (id: number) => (await probot.auth(id)) as unknown as AuthenticatedOctokit;
  const call = mapGitHubErrors;
  return {
    identity: () =>
      call("reading the app (GET /app)", async () => {
        const { data } = (await (await asApp()).request("GET /app")) as {
          data: { id?: number; slug?: string } | null;
        };
        return { id: data?.id ?? 0, slug: data?.slug ?? "porchlight" };
      }),
    installationIds: () =>
      call("listing the app's installations", async () => {
        const all = (await (await asApp()).paginate("GET /app/installations", { per_page: 100 })) as {
          id: number;
        }[];
        return all.map((i) => i.id);
      }),
    installationIdOf: (repo) =>
      call(`finding the installation of ${repo.owner}/${repo.repo}`, async () => {
        const { data } = (await (
          await asApp()
        ).request("GET /repos/{owner}/{repo}/installation", {
          owner: repo.owner,
          repo: repo.repo,
        })) as { data: { id: number } };
        return data.id;
      }),
    installationIdOfAccount: (login) =>
      call(`finding the installation on ${login}`, async () => {
        const { data } = (await (
          await asApp()
        ).request("GET /users/{username}/installation", { username: login })) as { data: { id: number } };
        return data.id;
      }),
    installation: (id) =>
      call(`authenticating as installation ${id}`, async () =>
        installationPort(await asInstallation(id), cacheDir, blobs),
      ),
    access: (id) =>
      installationAccess(id, async () => (await asInstallation(id)).auth({ type: "installation" })),
  };
}
