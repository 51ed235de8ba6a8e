import { describe, expect, it } from "vitest";
import type { AppDeps } from "../../src/app/deps.js";
import { type JobData, type JobRequest, queueFollowUp } from "../../src/app/run-job.js";
import { sweepInstallations } from "../../src/app/sweep.js";
import type { AppPort, InstallationPort, InstallationRepository } from "../../src/github/port.js";
import { Metrics } from "../../src/ops/metrics.js";
import { type JobSpec, RepoQueues } from "../../src/queue/repo-queue.js";

const repository = (n: number): InstallationRepository => ({
  id: { owner: "acme", repo: `r${n}` },
  fullName: `acme/r${n}`,
  topics: [],
  defaultBranch: "main",
  cloneUrl: `https://example.test/acme/r${n}.git`,
  archived: false,
});

/** An app with one installation of three repositories; only what the sweep and fan-out read. */
const app = {
  installationIds: async () => [7],
  installationIdOf: async () => 7,
  installation: async () =>
    ({
      listRepositories: async () => [0, 1, 2].map(repository),
      repository: async () => repository(9),
    }) as unknown as InstallationPort,
} as unknown as AppPort;

/** Queues that record what they are given and run nothing. */
class Recorder extends RepoQueues {
  readonly specs: JobSpec[] = [];
  override enqueue(job: JobSpec) {
    this.specs.push(job);
    return Promise.resolve({ repo: job.repo, key: job.key, ok: true, durationMs: 0 });
  }
}

function deps(): AppDeps & { queues: Recorder } {
  return {
    queues: new Recorder(1),
    metrics: new Metrics(),
  } as unknown as AppDeps & { queues: Recorder };
}

/** A publish job of r9 (as a webhook queued it), whose outbox holds v1's fan-out. */
const publishJob: JobRequest = {
  kind: "command",
  key: "#1",
  task: "command",
  args: { issue: 1, commentId: 1 },
  repository: repository(9),
  installationId: 7,
  connect: () => app.installation(7),
};
const queueFanout = (d: AppDeps) =>
  queueFollowUp(d, publishJob, {
    task: "fanout-published",
    target: { kind: "here" },
    event: { repo: { owner: "acme", repo: "r9" }, package: "app", revision: 1, tag: "app/v1", commit: "c" },
  });

describe("which jobs the sweep queues, and at what rank", () => {
  /** A sweep of r0–r2 and then a publish in r9: each job's repository, key and origin, in order. */
  const QUEUED = [
    "acme/r0 reconcile:sweep sweep",
    "acme/r1 reconcile:sweep sweep",
    "acme/r2 reconcile:sweep sweep",
    "acme/r0 fanout:sweep sweep",
    "acme/r1 fanout:sweep sweep",
    "acme/r2 fanout:sweep sweep",
    "acme/r9 fanout:app/v1 event",
  ];

  it("in one process: the sweep's jobs are the sweep's, a publish's fan-out is an event's", async () => {
    const d = deps();
    await sweepInstallations(d, app);
    await queueFanout(d);
    expect(d.queues.specs.map((s) => `${s.repo} ${s.key} ${s.origin}`)).toEqual(QUEUED);
  });

  it("with Redis: the same marks travel with the job data", async () => {
    const d = deps();
    const sent: JobData[] = [];
    d.distributed = {
      enqueue: async (job) => {
        sent.push(job);
        return "queued";
      },
    };
    await sweepInstallations(d, app);
    await queueFanout(d);
    expect(sent.map((j) => `${j.repository.fullName} ${j.kind}:${j.key} ${j.origin ?? "event"}`)).toEqual(
      QUEUED,
    );
    expect(d.queues.specs).toEqual([]);
  });
});
