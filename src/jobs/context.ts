import type { Logger } from "pino";
import type { RepoConfig } from "../config/resolve.js";
import { effectiveRuntimes } from "../config/runtimes.js";
import type { Runtime } from "../config/schema.js";
import type { CommitAuthor, InstallationPort, RepoPort } from "../github/port.js";
import type { PorchlightEvents } from "./events.js";
import type { Renderer } from "./renderer.js";

/** Who the bot is on GitHub: its login (`<slug>[bot]`) and the author of its commits. */
export interface BotIdentity {
  login: string;
  author: CommitAuthor;
}

/**
 * Everything a job needs, passed explicitly (no module state): the repository's door to GitHub, its
 * resolved configuration and base branch, the render engine, the bot's identity, the app's events.
 */
export interface JobContext {
  port: RepoPort;
  config: RepoConfig;
  /** The branch proposals merge into: the configured one, else the repository's default branch. */
  baseBranch: string;
  renderer: Renderer;
  bot: BotIdentity;
  events: PorchlightEvents;
  log: Logger;
  /** The runtimes the app's operator allows (builtin, and exec/container only when opted in). */
  operatorRuntimes: readonly Runtime[];
  /** The installation's other repositories, for jobs that span them (fan-out); absent in single-repository runs. */
  installation?: InstallationPort;
}

/** The runtimes this repository's functions may use: the operator's, narrowed by the repository. */
export function allowedRuntimes(ctx: Pick<JobContext, "config" | "operatorRuntimes">): Runtime[] {
  return effectiveRuntimes(ctx.operatorRuntimes, ctx.config.functions.runtimes).allowed;
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
