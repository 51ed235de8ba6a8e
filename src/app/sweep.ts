import type { AppPort } from "../github/port.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob } from "./run-job.js";

/**
 * The periodic sweep: for every installation, every repository gets a reconcile job (every draft
 * rendered, every proposal checked, every unfinished publish finished), then every repository a fan-out
 * job. Jobs go through the repositories' queues like webhook jobs, oldest first: queued in two passes,
 * the fan-out jobs, which read other repositories' tags and proposals, start after the reconcile jobs
 * that finish those repositories' publishes. Returns the number of repositories queued.
 */
export async function sweepInstallations(deps: AppDeps, app: AppPort): Promise<number> {
  const all = [];
  for (const id of await app.installationIds()) {
    const connect = () => app.installation(id);
    for (const repository of await (await connect()).listRepositories())
      all.push({
        key: "sweep",
        origin: "sweep" as const,
        connect,
        repository,
        installationId: id,
        args: {},
      });
  }
  for (const common of all) await enqueueJob(deps, { ...common, kind: "reconcile", task: "reconcile" });
  for (const common of all) await enqueueJob(deps, { ...common, kind: "fanout", task: "fanout-sweep" });
  return all.length;
}
