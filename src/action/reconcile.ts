import type { AppDeps } from "../app/deps.js";
import { enqueueJob } from "../app/run-job.js";
import type { InstallationPort, InstallationRepository } from "../github/port.js";
import type { SweepResult } from "../jobs/reconcile.js";

/**
 * The periodic reconcile of the workflow's own repository (the hosted app sweeps every repository
 * of every installation; a workflow's token reaches only its own): every draft rendered, every
 * proposal checked, then the fan-out sweep, through the queue like any other jobs. Resolves with
 * the sweep's result once the jobs have run, or null when the reconcile job did not get to it (a
 * broken configuration, reported as a check, or a failed job, in the outcomes).
 */
export async function reconcileHere(
  deps: AppDeps,
  connect: () => Promise<InstallationPort>,
  repository: InstallationRepository,
): Promise<SweepResult | null> {
  let result: SweepResult | null = null;
  await enqueueJob(deps, {
    kind: "reconcile",
    key: "sweep",
    origin: "sweep",
    connect,
    repository,
    task: "reconcile",
    args: {},
    onOutcome: (outcome) => {
      result = outcome as SweepResult;
    },
  });
  // The fan-out half: missing catalog entries recorded, variants reconciled.
  await enqueueJob(deps, {
    kind: "fanout",
    key: "sweep",
    origin: "sweep",
    connect,
    repository,
    task: "fanout-sweep",
    args: {},
  });
  await deps.queues.idle();
  return result;
}
