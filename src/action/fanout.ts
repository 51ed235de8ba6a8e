import type { AppDeps } from "../app/deps.js";
import { enqueueJob } from "../app/run-job.js";
import type { InstallationPort, InstallationRepository } from "../github/port.js";
import type { PublishedEvent } from "../jobs/events.js";
import type { Enqueued } from "../jobs/repo-queue.js";

/**
 * What the hosted app does after a publish, with the workflow's token: a fan-out job on the
 * repository's queue (the revision into the catalog, then the repository's variants reconciled).
 * The app finds the installation of the repository with its JWT; a workflow has only its token, which
 * is the installation. Returns the function that unsubscribes.
 */
export function fanoutOnPublish(deps: AppDeps, connect: () => Promise<InstallationPort>): () => void {
  return deps.events.onPublished(async (event: PublishedEvent) => {
    await enqueueJob(deps, {
      kind: "fanout",
      key: event.tag,
      connect,
      // The repository that published: this one, or (auto-publish) a downstream the token reaches.
      repository: await (await connect()).repository(event.repo),
      task: "fanout-published",
      args: event,
    });
  });
}

/** The fan-out half of the periodic reconcile: missing catalog entries recorded, variants reconciled. */
export function enqueueFanoutSweep(
  deps: AppDeps,
  connect: () => Promise<InstallationPort>,
  repository: InstallationRepository,
): Promise<Enqueued> {
  return enqueueJob(deps, {
    kind: "fanout",
    key: "sweep",
    origin: "sweep",
    connect,
    repository,
    task: "fanout-sweep",
    args: {},
  });
}
