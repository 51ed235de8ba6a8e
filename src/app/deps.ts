import type { Logger } from "pino";
import type { Limits } from "../config/limits.js";
import type { Runtime } from "../config/schema.js";
import type { DefaultBranchFiles } from "../github/default-branch-files.js";
import type { InstallationLookup } from "../github/installation-lookup.js";
import type { GitObjectCache } from "../github/object-cache.js";
import type { OwnWrites } from "../github/own-writes.js";
import type { InstallationPort, RepoId } from "../github/port.js";
import type { StopGate } from "../github/stop-gate.js";
import type { BotIdentity } from "../jobs/context.js";
import type { MirrorAccess } from "../jobs/mirror/index.js";
import type { PackageEngine } from "../jobs/package-engine.js";
import type { Renderer } from "../jobs/renderer.js";
import type { Metrics } from "../ops/metrics.js";
import type { ParkedJobs } from "../queue/parked.js";
import type { Enqueued, RepoQueues } from "../queue/repo-queue.js";
import type { JobData, JobRequest } from "./run-job.js";

/** What the app's handlers share; one per running app, passed explicitly. */
export interface AppDeps {
  queues: RepoQueues;
  /** Set when the app runs as one of several replicas (REDIS_URL): jobs go to Redis, not `queues`. */
  distributed?: { enqueue(job: JobData): Promise<Enqueued> };
  metrics: Metrics;
  renderer: Renderer;
  /** Merges and variants' mutations within the operator's bound; absent: on the app's thread. */
  engine?: PackageEngine;
  /** Where bare cache clones of repositories live. */
  cacheDir: string;
  /** Files' bytes by blob id, kept for the app's life (absent: every job reads its files from git). */
  blobs?: GitObjectCache;
  /** Default-branch files (the configuration) kept by commit for the app's life (default-branch-files.ts). */
  files?: DefaultBranchFiles;
  /**
   * The app's own check runs of the commits, and marked comments of the pull requests, this process
   * listed, kept with what it wrote there since (own-writes.ts): one process only; a fleet's replicas
   * (Redis) each write, so there it is absent.
   */
  own?: OwnWrites;
  /** Shut at a stop past its grace: the jobs still running reach GitHub no more (stop-gate.ts). */
  gate?: StopGate;
  /** The runtimes the operator allows (exec/container only with explicit opt-in). */
  operatorRuntimes: Runtime[];
  /** What a package and a job may cost (PORCHLIGHT_MAX_*); absent: the defaults. */
  operatorLimits?: Limits;
  log: Logger;
  /** The app's clock (rollout soak times, schedules, catalog times); tests pass a virtual one. */
  now?: () => Date;
  /** The app's bot user and commit author (read once from `GET /app`). */
  identity: () => Promise<BotIdentity>;
  /**
   * The installation of a repository outside a job's own (a follow-up job there: a management repository
   * in another account); absent outside the hosted app, where the token is the only installation.
   */
  otherInstallation?: (
    repo: RepoId,
  ) => Promise<{ installationId: number; connect: () => Promise<InstallationPort> }>;
  /** A fresh lookup of the app's installations by repository, one per job (fan-out across accounts). */
  installationLookup?: () => InstallationLookup;
  /** Registry access for mirroring published revisions (publish.oci); absent: no mirroring. */
  mirror?: MirrorAccess;
  /** Jobs parked until a GitHub rate limit resets (run-job.ts); absent: a rate-limited job fails. */
  parked?: ParkedJobs<JobRequest>;
  /** Told of each webhook of a repository (`owner/repo`, the event, its payload): AppServerOptions.onRepositoryEvent. */
  onRepositoryEvent?: (repository: string, event: string, payload?: unknown) => void;
}
