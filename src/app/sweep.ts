import type { AppPort } from "../github/port.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob, type JobRequest, queueHere } from "./run-job.js";
import { sweepActions } from "./sweep-actions.js";

/** What one sweep did, once its jobs have run. */
interface SweepDone {
  /** What its jobs did that no event had, by kind (sweep-actions.ts); empty in a healthy run. */
  actions: Record<string, number>;
  /** Its jobs that failed (logged each as "job failed"). */
  failedJobs: number;
}

export interface SweepQueued {
  /** Repositories queued. */
  repositories: number;
  /** In this process: resolves once every job of the sweep has run. Distributed: absent (each replica counts its own). */
  done?: Promise<SweepDone>;
}

/**
 * The periodic sweep: for every installation, every repository gets a reconcile job (every draft
 * rendered, every proposal checked, every unfinished publish finished), then every repository a fan-out
 * job. Jobs go through the repositories' queues like webhook jobs, oldest first: queued in two passes,
 * the fan-out jobs, which read other repositories' tags and proposals, start after the reconcile jobs
 * that finish those repositories' publishes.
 */
export async function sweepInstallations(deps: AppDeps, app: AppPort): Promise<SweepQueued> {
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
  const requests: JobRequest[] = [
    ...all.map((common) => ({ ...common, kind: "reconcile", task: "reconcile" as const })),
    ...all.map((common) => ({ ...common, kind: "fanout", task: "fanout-sweep" as const })),
  ];
  if (deps.distributed) {
    for (const req of requests) await enqueueJob(deps, req);
    return { repositories: all.length };
  }
  const actions: Record<string, number> = {};
  const ran = requests.map((req) =>
    queueHere(deps, {
      ...req,
      onOutcome: (outcome) => {
        for (const [kind, n] of Object.entries(sweepActions(req.task, outcome)))
          actions[kind] = (actions[kind] ?? 0) + n;
      },
    }),
  );
  const done = Promise.all(ran).then((outcomes) => ({
    actions,
    failedJobs: outcomes.filter((o) => !o.ok).length,
  }));
  return { repositories: all.length, done };
}
