import { loadRepoConfig } from "../../config/load.js";
import { CONFIG_PATH } from "../../config/parse.js";
import type { FanoutContext } from "./context.js";
import type { RepoSnapshot } from "./snapshot.js";

/**
 * Whether a downstream repository is a deployment repository (`deployment: true` in its
 * `.github/porchlight.yml`, Porch's `Repository.spec.deployment`): a clone into it gets its package context
 * generated anew, as Porch's clone task does there. Its own file is read from the snapshot (git, already
 * fetched); organisation defaults through the installation, when it can read them. A configuration that
 * cannot be read counts as not deployment: the clone is then the upstream's as `kpt pkg get` writes it.
 */
export async function isDeploymentRepository(ctx: FanoutContext, snap: RepoSnapshot): Promise<boolean> {
  const id = snap.repository.id;
  const loaded = await loadRepoConfig(async (file) => {
    if (file.owner === id.owner && file.repo === id.repo && file.path === CONFIG_PATH)
      return snap.tree.get(CONFIG_PATH)?.toString("utf8");
    try {
      return await ctx.installation.readFile(file);
    } catch {
      return undefined;
    }
  }, id);
  return loaded.ok && loaded.config.deployment;
}
