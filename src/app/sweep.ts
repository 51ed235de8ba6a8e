import type { AppPort } from "../github/port.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob } from "./run-job.js";

/**
 * The periodic sweep: for every installation, every repository gets a reconcile job (every draft
 * rendered, every proposal checked). Jobs go through the repositories' queues like webhook jobs.
 * Returns the number of repositories queued.
 */
export async function sweepInstallations(deps: AppDeps, app: AppPort): Promise<number> {
  let queued = 0;
  for (const id of await app.installationIds()) {
    const connect = () => app.installation(id);
    for (const repository of await (await connect()).listRepositories()) {
      const common = {
        key: "sweep",
        origin: "sweep" as const,
        connect,
        repository,
        installationId: id,
        args: {},
      };
      await enqueueJob(deps, { ...common, kind: "reconcile", task: "reconcile" });
      await enqueueJob(deps, { ...common, kind: "fanout", task: "fanout-sweep" });
      queued++;
    }
  }
  return queued;
}
