import { type LoadedConfig, loadRepoConfig } from "../config/load.js";
import type { ConfigProblem } from "../config/problem.js";
import { defaultConfig } from "../config/resolve.js";
import type { InstallationPort, InstallationRepository, RepoPort } from "../github/port.js";
import { type JobContext, withDeferred } from "../jobs/context.js";
import { reportConfigProblems } from "./config.js";
import type { AppDeps } from "./deps.js";

export interface JobRequest {
  /**
   * Names the job in logs and metrics: render, check, config-proposal, variants, publish, command,
   * reconcile, fanout, config.
   */
  kind: string;
  /** With `kind`, identifies the work: a pending job with the same key absorbs a new one. */
  key: string;
  /** Opens the door to the repository's installation when the job starts: one per job. */
  connect: () => Promise<InstallationPort>;
  repository: InstallationRepository;
  deliveryId?: string;
  /** Where a configuration problem is reported as a failing check. */
  headSha?: string;
  /** Besides the check: how to tell the user the configuration is broken (a command's reply). */
  onBadConfig?: (port: RepoPort, problems: ConfigProblem[]) => Promise<void>;
  /**
   * False for a job that runs nothing and only reads (checking the configuration a pull request
   * proposes): it runs with the built-in defaults even while the repository's configuration is broken.
   */
  needsConfig?: boolean;
  work: (ctx: JobContext) => Promise<unknown>;
}

/**
 * Queues a job on its repository's queue. When it runs, it opens the installation (one adapter for the
 * job: the repository's port is the installation's port for it), loads and checks the configuration (a
 * broken or unreadable one is reported and nothing else happens), then does the work.
 */
export function enqueueJob(deps: AppDeps, req: JobRequest): void {
  const full = req.repository.fullName;
  deps.metrics.queueDepth.set(deps.queues.size + 1);
  void deps.queues.enqueue({
    repo: full,
    key: `${req.kind}:${req.key}`,
    run: async () => {
      const log = deps.log.child({ repo: full, job: req.kind, key: req.key, deliveryId: req.deliveryId });
      const installation = await req.connect();
      const port = installation.repo(req.repository);
      const loaded: LoadedConfig =
        req.needsConfig === false
          ? { ok: true, config: defaultConfig() }
          : await loadRepoConfig((file) => installation.readFile(file), req.repository.id);
      if (!loaded.ok) {
        log.warn({ problems: loaded.problems.length }, "configuration is broken; doing nothing");
        if (req.headSha) await reportConfigProblems(port, req.headSha, loaded.problems);
        await req.onBadConfig?.(port, loaded.problems);
        return;
      }
      const ctx: JobContext = {
        port,
        config: loaded.config,
        baseBranch: loaded.config.baseBranch ?? req.repository.defaultBranch,
        renderer: deps.renderer,
        bot: await deps.identity(),
        events: deps.events,
        log,
        operatorRuntimes: deps.operatorRuntimes,
        ...(deps.operatorLimits ? { operatorLimits: deps.operatorLimits } : {}),
        installation,
      };
      const end = deps.metrics.jobDuration.startTimer({ kind: req.kind });
      try {
        const outcome = await withDeferred(ctx, req.work);
        log.info({ outcome }, "job done");
      } finally {
        end();
      }
    },
  });
}
