import pino from "pino";
import type { JobContext } from "../jobs/context.js";
import { rootOutbox } from "../jobs/outbox.js";
import type { Renderer } from "../jobs/renderer.js";
import type { Repository } from "./repository.js";

/** The CLI runs lifecycle jobs but never renders: rendering a draft is the bot's job on push. */
const noRenderer: Renderer = {
  render: () => Promise.reject(new Error("porchlight rpkg does not render; the bot renders drafts on push")),
  validate: () => Promise.reject(new Error("porchlight rpkg does not run guardrails; the bot does")),
  runtimesNeeded: () => [],
};

/**
 * The context the bot's jobs run with, for the same jobs run from the command line: the same
 * RepoPort, configuration and base branch, the token's user as the actor and its door as the
 * installation, and a silent log. The command line has no queue: the follow-ups its jobs record (a
 * publish's fan-out) are left to the bot, which the merge's own event (`merged`) and the sweep start.
 */
export async function jobContext(repo: Repository): Promise<JobContext> {
  const who = await repo.whoami();
  return {
    port: repo.conn.port,
    config: repo.config,
    baseBranch: repo.baseBranch,
    renderer: noRenderer,
    bot: { login: who?.login ?? "porchlight-rpkg", author: await repo.author() },
    installation: repo.conn.installation,
    outbox: rootOutbox(async () => {}),
    log: pino({ level: "silent" }),
    operatorRuntimes: ["builtin"],
  };
}
