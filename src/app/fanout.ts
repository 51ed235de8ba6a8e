import type { Probot } from "probot";
import type { PublishedEvent } from "../jobs/events.js";
import { fanoutAfterPublish } from "../jobs/fanout/jobs.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob, type JobRequest } from "./run-job.js";

interface AppRequest {
  request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }>;
}

/**
 * published → a fan-out job on the repository's queue (after the publishing job): the revision into the
 * catalog, then the repository's variants reconciled. The installation is looked up by the repository,
 * so any job that publishes (a review, `/approve`, auto-publish) starts fan-out the same way.
 */
export async function enqueueFanout(deps: AppDeps, probot: Probot, event: PublishedEvent): Promise<void> {
  const app = (await probot.auth()) as unknown as AppRequest;
  const { data: inst } = (await app.request("GET /repos/{owner}/{repo}/installation", { ...event.repo })) as {
    data: { id: number };
  };
  const octokit = (await probot.auth(inst.id)) as unknown as AppRequest & JobRequest["octokit"];
  const { data: repository } = (await octokit.request("GET /repos/{owner}/{repo}", { ...event.repo })) as {
    data: JobRequest["repository"];
  };
  enqueueJob(deps, {
    kind: "fanout",
    key: event.tag,
    octokit,
    repository,
    work: (ctx) => (ctx.installation ? fanoutAfterPublish(ctx, ctx.installation, event) : Promise.resolve()),
  });
}
