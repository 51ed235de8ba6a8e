import type { AppDeps } from "../app/deps.js";
import { enqueueJob, type JobRequest } from "../app/run-job.js";
import { reconcileRepo, type SweepResult } from "../jobs/reconcile.js";

/**
 * The periodic reconcile of the workflow's own repository (the hosted app sweeps every repository
 * of every installation; a workflow's token reaches only its own). The job goes through the queue
 * like any other. Resolves with the sweep's result once it has run, or null when the job did not
 * get to reconcile (a broken configuration, reported as a check, or a failed job, in the outcomes).
 */
export async function reconcileHere(
  deps: AppDeps,
  octokit: JobRequest["octokit"],
  repo: { owner: string; repo: string },
): Promise<SweepResult | null> {
  const { data } = await octokit.request("GET /repos/{owner}/{repo}", { ...repo });
  const repository = data as JobRequest["repository"];
  let result: SweepResult | null = null;
  enqueueJob(deps, {
    kind: "reconcile",
    key: "sweep",
    octokit,
    repository,
    work: async (ctx) => {
      result = await reconcileRepo(ctx);
      return result;
    },
  });
  await deps.queues.idle();
  return result;
}
