import type { AppPort } from "../github/port.js";
import { sweepFanout } from "../jobs/fanout/jobs.js";
import { reconcileRepo } from "../jobs/reconcile.js";
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
      enqueueJob(deps, {
        kind: "reconcile",
        key: "sweep",
        connect,
        repository,
        work: (ctx) => reconcileRepo(ctx),
      });
      enqueueJob(deps, {
        kind: "fanout",
        key: "sweep",
        connect,
        repository,
        work: (ctx) => (ctx.installation ? sweepFanout(ctx, ctx.installation) : Promise.resolve()),
      });
      queued++;
    }
  }
  return queued;
}
