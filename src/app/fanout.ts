import type { AppPort } from "../github/port.js";
import type { FanoutWantedEvent, PublishedEvent } from "../jobs/events.js";
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

/**
 * A management repository's fan-out wanted now (checks finished on one of its downstreams) → a fan-out job
 * on its own queue, so that fan-out runs one at a time per management repository whichever downstream
 * asked: two downstreams' checks finishing together never merge one pull request twice. While one such
 * job waits, it absorbs the next requests (it reads everything when it runs).
 */
export async function enqueueFanoutWanted(
  deps: AppDeps,
  app: AppPort,
  event: FanoutWantedEvent,
): Promise<void> {
  const id = await app.installationIdOf(event.repo);
  const repository = await (await app.installation(id)).repository(event.repo);
  deps.log.info(
    { repo: repository.fullName, reason: event.reason },
    "fan-out queued: checks finished downstream",
  );
  await enqueueJob(deps, {
    kind: "fanout",
    key: "checks",
    connect: () => app.installation(id),
    repository,
    installationId: id,
    task: "fanout-wanted",
    args: {},
  });
}
