import type { Repository } from "../../porch/repository.js";
import { ApiError } from "../status.js";

const WRITERS = new Set(["write", "maintain", "admin"]);

/**
 * The API's check before a write, in Kubernetes' words: the caller's GitHub permission on the repository
 * must let them push (a reader lists, a writer drafts; publishing then decides by the repository's own
 * rules, as `/approve` does). GitHub would refuse the push anyway: this says so before anything is tried.
 */
export async function requireWrite(
  repo: Repository,
  verb: string,
  resource: string,
  name: string,
): Promise<void> {
  const permission = repo.conn.info.permission;
  if (WRITERS.has(permission)) return;
  const who = (await repo.whoami())?.login ?? "the token's user";
  throw new ApiError(
    "Forbidden",
    `${resource}.porch.kpt.dev "${name}" is forbidden: User "${who}" cannot ${verb} resource "${resource}" in API group "porch.kpt.dev" in the namespace "${repo.namespace}": ${who} has ${permission} permission on ${repo.full}, and ${verb} needs write`,
    { name, group: "porch.kpt.dev", kind: resource },
  );
}
