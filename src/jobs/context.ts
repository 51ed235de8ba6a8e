import type { Logger } from "pino";
import { DEFAULT_LIMITS, type EffectiveLimits, effectiveLimits, type Limits } from "../config/limits.js";
import type { RepoConfig } from "../config/resolve.js";
import { effectiveRuntimes } from "../config/runtimes.js";
import type { Runtime } from "../config/schema.js";
import type { InstallationLookup } from "../github/installation-lookup.js";
import type { CommitAuthor, InstallationPort, RepoPort } from "../github/port.js";
import type { MirrorAccess } from "./mirror/index.js";
import { type Outbox, scopedOutbox } from "./outbox.js";
import type { PackageEngine } from "./package-engine.js";
import type { Renderer } from "./renderer.js";

/** Who the bot is on GitHub: its login (`<slug>[bot]`) and the author of its commits. */
export interface BotIdentity {
  login: string;
  author: CommitAuthor;
}

/**
 * Everything a job needs, passed explicitly (no module state): the repository's door to GitHub, its
 * resolved configuration and base branch, the render engine, the bot's identity, the installation it acts
 * in, and the outbox where it records the jobs it implies.
 */
export interface JobContext {
  port: RepoPort;
  config: RepoConfig;
  /** The branch proposals merge into: the configured one, else the repository's default branch. */
  baseBranch: string;
  renderer: Renderer;
  /** Merges and variants' mutations (the app's within its bound); absent: inProcessEngine. */
  engine?: PackageEngine;
  bot: BotIdentity;
  /**
   * The jobs this one implies (a published revision's fan-out, a management repository's fan-out):
   * queued through the runner's queue when the work returns, before its deferred steps (outbox.ts).
   */
  outbox: Outbox;
  log: Logger;
  /** The runtimes the app's operator allows (builtin, and exec/container only when opted in). */
  operatorRuntimes: readonly Runtime[];
  /** What a package and a job may cost, as the operator set it; absent: the defaults. */
  operatorLimits?: Limits;
  /**
   * The installation the job acts in (fan-out spans its repositories): the app's installation, the
   * Action's or the command line's token.
   */
  installation: InstallationPort;
  /** The app's other installations by repository (fan-out to another account); absent outside the hosted app. */
  installationFor?: InstallationLookup;
  /**
   * Queues a step to run once the job's work is done and answered (its reply or comment written),
   * once per `key`: false when that key is queued already. A job that fails before never runs it.
   * Absent (the CLI, tests): `afterAnswer` runs the step at once. Publishing deletes the draft branch
   * this way, because the branch is what tells the sweep a publish is unfinished: it must outlive the
   * answer, or a crash in between loses the answer.
   */
  defer?: (key: string, step: () => Promise<void>) => boolean;
  /** How the bot reaches OCI registries for `publish.oci` (the operator's credentials); absent: no mirroring. */
  mirror?: MirrorAccess;
  /** The clock (rollout soak times and schedules, catalog times); absent: the system's. */
  now?: () => Date;
}

/** The runtimes this repository's functions may use: the operator's, narrowed by the repository. */
export function allowedRuntimes(ctx: Pick<JobContext, "config" | "operatorRuntimes">): Runtime[] {
  return effectiveRuntimes(ctx.operatorRuntimes, ctx.config.functions.runtimes).allowed;
}

/** The limits this repository's jobs run with: the operator's, lowered by the repository's own. */
export function jobLimits(ctx: Pick<JobContext, "config" | "operatorLimits">): EffectiveLimits {
  return effectiveLimits(ctx.operatorLimits ?? DEFAULT_LIMITS, ctx.config.limits);
}

/** `owner/repo` of the job's repository. */
export function repoName(ctx: Pick<JobContext, "port">): string {
  return `${ctx.port.id.owner}/${ctx.port.id.repo}`;
}

/** Whether a pull request's head is a branch of another repository (a fork, or a deleted one). */
export function fromFork(ctx: Pick<JobContext, "port">, pr: { headRepo: string | null }): boolean {
  return pr.headRepo === null || pr.headRepo.toLowerCase() !== repoName(ctx).toLowerCase();
}

/** The check runs porchlight writes. */
export const CHECK = {
  render: "porchlight/render",
  guardrails: "porchlight/guardrails",
  config: "porchlight/config",
} as const;

/**
 * Runs `work` with its own `defer` and outbox; then queues the follow-ups it recorded (even when it
 * failed after recording them: what they follow happened), then runs the steps it deferred — only if
 * `work` succeeded. A job runs its work this way, and so does a part of a job that answers on its own
 * (the sweep's resumed publishes), so a step never outlives an answer that failed, and a step that
 * removes the marker of unfinished work (a published draft's branch) never runs before the follow-up
 * that work implies is queued.
 */
export async function withDeferred<T>(ctx: JobContext, work: (ctx: JobContext) => Promise<T>): Promise<T> {
  const steps = new Map<string, () => Promise<void>>();
  const defer = (key: string, step: () => Promise<void>): boolean => {
    if (steps.has(key)) return false;
    steps.set(key, step);
    return true;
  };
  const outbox = scopedOutbox(ctx.outbox);
  let result: T;
  try {
    result = await work({ ...ctx, defer, outbox });
  } catch (e) {
    await outbox.send().catch((err: unknown) => ctx.log.error({ err }, "follow-up jobs could not be queued"));
    throw e;
  }
  await outbox.send();
  for (const step of steps.values()) await step();
  return result;
}

/** Runs `step` once the job has answered (see `JobContext.defer`), or now where nothing defers. */
export async function afterAnswer(
  ctx: Pick<JobContext, "defer">,
  key: string,
  step: () => Promise<void>,
): Promise<void> {
  if (ctx.defer) ctx.defer(key, step);
  else await step();
}
