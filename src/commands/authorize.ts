import type { Runtime } from "../config/schema.js";
import { hasPermission, type Permission } from "./permission.js";

export type Refusal = { ok: false; reason: string };
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
  return `this pull request comes from a fork and its pipeline needs ${untrusted.join(" and ")} functions, which porchlight never runs for forks; push the branch to this repository to run them`;
}

export interface Actor {
  login: string;
  permission: Permission;
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
