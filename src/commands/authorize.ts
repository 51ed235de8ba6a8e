import { type Actor, hasPermission, type Permission } from "../api/permission.js";
import type { Runtime } from "../config/schema.js";

export type { Actor };

type Refusal = { ok: false; reason: string };
export type Authorized = { ok: true } | Refusal;

/** Runtimes that run code from outside porchlight. */
const UNTRUSTED: readonly Runtime[] = ["exec", "container"];

/**
 * Whether a pull request's functions may run: never exec or container code for a branch of a fork,
 * whatever the configuration says, since the fork's author wrote both the code and its pipeline.
 */
export function forkRuntimeProblem({
  isFork,
  runtimesNeeded,
}: {
  isFork: boolean;
  runtimesNeeded: readonly Runtime[];
}): string | undefined {
  if (!isFork) return undefined;
  const untrusted = runtimesNeeded.filter((r) => UNTRUSTED.includes(r));
  if (untrusted.length === 0) return undefined;
  return `this pull request comes from a fork and its pipeline needs ${untrusted.join(" and ")} functions, which porchlight never runs for forks; a maintainer can copy the package into a draft of this repository with \`/adopt\`, where the repository's own rules apply`;
}

/**
 * What porchlight answers for a branch of a fork where a draft is needed: a fork's branch is never a
 * draft of this repository (its author has no write permission here, and its content was never pushed
 * here), so it is never rendered, published, rejected back to draft or promoted.
 */
export function forkNotDraft(verb: string, pull: number, headRepo: string | null): string {
  const from = headRepo ? `the fork \`${headRepo}\`` : "a fork that no longer exists";
  return `\`/${verb}\` refused: #${pull} comes from ${from}, and a fork's branch is not a draft of this repository, so porchlight never renders, publishes or changes it. A maintainer can say \`/adopt\` to copy its package changes into a draft here, then review and approve that proposal.`;
}

/** Whether `actor` may run a command or count as a reviewer, by their permission on the repository. */
export function authorize(actor: Actor, action: string, required: Permission): Authorized {
  if (hasPermission(actor.permission, required)) return { ok: true };
  const have = actor.permission === "none" ? "no permission" : `${actor.permission} permission`;
  return {
    ok: false,
    reason: `@${actor.login}, ${action} needs ${required} permission on this repository; you have ${have}.`,
  };
}
