import type { Probot } from "probot";
import { sweepFanout } from "../jobs/fanout/jobs.js";
import { reconcileRepo } from "../jobs/reconcile.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob, type JobRequest } from "./run-job.js";

interface Paginating {
  paginate(route: string, params?: Record<string, unknown>): Promise<unknown[]>;
}

/**
 * The periodic sweep: for every installation, every repository gets a reconcile job (every draft
 * rendered, every proposal checked). Jobs go through the repositories' queues like webhook jobs.
 * Returns the number of repositories queued.
 */
export async function sweepInstallations(deps: AppDeps, probot: Probot): Promise<number> {
  const app = (await probot.auth()) as unknown as Paginating;
  const installations = (await app.paginate("GET /app/installations")) as { id: number }[];
  let queued = 0;
  for (const inst of installations) {
    const octokit = (await probot.auth(inst.id)) as unknown as Paginating & JobRequest["octokit"];
    const repos = (await octokit.paginate("GET /installation/repositories")) as JobRequest["repository"][];
    for (const repository of repos) {
      enqueueJob(deps, {
        kind: "reconcile",
        key: "sweep",
        octokit,
        repository,
        work: (ctx) => reconcileRepo(ctx),
      });
      enqueueJob(deps, {
        kind: "fanout",
        key: "sweep",
        octokit,
        repository,
        work: (ctx) => (ctx.installation ? sweepFanout(ctx, ctx.installation) : Promise.resolve()),
      });
      queued++;
    }
  }
  return queued;
}
