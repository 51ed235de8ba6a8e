import { connectRepo } from "../github/connect.js";
import { GitHubError } from "../github/errors.js";
import { REGISTRY_REPO } from "../porch/repo-address.js";
import type { StoreSettings } from "../porchapi/registry/index.js";
import type { Caller, NamespaceAccess, NamespaceAccessPort, RepositoryAccess } from "../porchapi/store.js";
import { registrationsOf } from "./rpkg.js";

/**
 * The caller's GitHub permissions in a namespace, for `kubectl auth can-i`: on each repository
 * registered there and on the registrations repository, each read with their token (`GET /repos/…`,
 * answered from the kept answers when nothing changed). A repository GitHub does not show them is left
 * out: they have no permission there.
 */
export function namespaceAccess(settings: StoreSettings): NamespaceAccessPort {
  return async (caller: Caller, namespace: string): Promise<NamespaceAccess> => {
    const access = {
      token: caller.token,
      apiUrl: settings.apiUrl,
      cacheDir: await settings.folders.hold(caller.token, caller.signal),
      conditional: settings.conditional,
      signal: caller.signal,
    };
    const reach = async (name: string, full: string): Promise<RepositoryAccess | undefined> => {
      const [owner = "", repo = ""] = full.split("/");
      try {
        const conn = await connectRepo({ ...access, repo: { owner, repo } });
        return { name, repository: full, permission: conn.info.permission };
      } catch (e) {
        // GitHub shows the repository to those who may read it: 404 (or 403) is no permission there
        if (e instanceof GitHubError && (e.kind === "not-found" || e.kind === "forbidden")) return undefined;
        throw e;
      }
    };
    const registry = await reach(REGISTRY_REPO, `${namespace}/${REGISTRY_REPO}`);
    if (!registry) return { registrations: [], registry: undefined };
    const { registrations } = await registrationsOf(access, namespace);
    const each = await Promise.all([...registrations].map(([name, r]) => reach(name, r.full)));
    return { registrations: each.filter((a) => a !== undefined), registry };
  };
}
