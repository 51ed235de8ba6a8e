import type { AppDeps } from "../app/deps.js";
import { enqueueJob, type JobRequest } from "../app/run-job.js";
import type { PublishedEvent } from "../jobs/events.js";
import { fanoutAfterPublish, sweepFanout } from "../jobs/fanout/jobs.js";
import { readRepository } from "./repository.js";

/**
 * What the hosted app does after a publish, with the workflow's token: a fan-out job on the
 * repository's queue (the revision into the catalog, then the repository's variants reconciled).
 * The app finds the installation of the repository with its JWT; a workflow has only its token, which
 * is the installation. Returns the function that unsubscribes.
 */
export function fanoutOnPublish(deps: AppDeps, octokit: JobRequest["octokit"]): () => void {
  return deps.events.onPublished(async (event: PublishedEvent) => {
    enqueueJob(deps, {
      kind: "fanout",
      key: event.tag,
      octokit,
      // The repository that published: this one, or (auto-publish) a downstream the token reaches.
      repository: await readRepository(octokit, event.repo),
      work: (ctx) =>
        ctx.installation ? fanoutAfterPublish(ctx, ctx.installation, event) : Promise.resolve(),
    });
  });
}

/** The fan-out half of the periodic reconcile: missing catalog entries recorded, variants reconciled. */
export function enqueueFanoutSweep(
  deps: AppDeps,
  octokit: JobRequest["octokit"],
  repository: JobRequest["repository"],
): void {
  enqueueJob(deps, {
    kind: "fanout",
    key: "sweep",
    octokit,
    repository,
    work: (ctx) => (ctx.installation ? sweepFanout(ctx, ctx.installation) : Promise.resolve()),
  });
}
