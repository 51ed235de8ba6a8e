import type { AppPort } from "../github/port.js";
import type { PublishedEvent } from "../jobs/events.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob } from "./run-job.js";

/**
 * published → a fan-out job on the repository's queue (after the publishing job): the revision into the
 * catalog, then the repository's variants reconciled. The installation is looked up by the repository,
 * so any job that publishes (a review, `/approve`, auto-publish) starts fan-out the same way.
 */
export async function enqueueFanout(deps: AppDeps, app: AppPort, event: PublishedEvent): Promise<void> {
  const id = await app.installationIdOf(event.repo);
  const repository = await (await app.installation(id)).repository(event.repo);
  await enqueueJob(deps, {
    kind: "fanout",
    key: event.tag,
    connect: () => app.installation(id),
    repository,
    installationId: id,
    task: "fanout-published",
    args: event,
  });
}
