import type { PackageRevision } from "../../lifecycle/index.js";
import type { KubeObject } from "../../porchapi/resources.js";
import type { Caller, ListOptions } from "../../porchapi/store.js";
import { nameOf } from "../rpkg/names.js";
import type { Repository } from "../rpkg/repository.js";
import { asApiErrors, requestEnv, type StoreSettings } from "./context.js";
import { findNamed, listRevisions, withVersion } from "./revisions.js";

/**
 * PackageRevisionResources: a revision's files, each by its path in the package with its content, as
 * Porch's (`spec.resources`), read from the revision's commit.
 */
async function resourcesObject(repo: Repository, rev: PackageRevision): Promise<KubeObject> {
  const { tree } = await repo.conn.port.readTree(rev.sha, repo.packageDir(rev.package));
  const resources: Record<string, string> = {};
  for (const path of [...tree.keys()].sort()) resources[path] = (tree.get(path) as Buffer).toString("utf8");
  return withVersion({
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevisionResources",
    metadata: { name: nameOf(repo, rev), namespace: repo.namespace },
    spec: {
      packageName: rev.package,
      workspaceName: rev.workspace,
      ...(rev.revision > 0 ? { revision: rev.revision } : {}),
      repository: repo.name,
      resources,
    },
    status: { renderStatus: { result: { exitCode: 0 }, error: "" } },
  });
}

export async function getResources(settings: StoreSettings, caller: Caller, ns: string, name: string) {
  return asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    const { repo, rev } = await findNamed(env, ns, name);
    return resourcesObject(repo, rev);
  });
}

/** Every revision's files in the namespace (the revisions `opts` selects, as for PackageRevisions). */
export async function listResources(settings: StoreSettings, caller: Caller, ns: string, opts: ListOptions) {
  const revisions = await listRevisions(settings, caller, ns, opts);
  return Promise.all(revisions.map((r) => getResources(settings, caller, ns, String(r.metadata?.name))));
}
