import { openRepository, type Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * The repository an operation names (its registered name or OWNER/REPO), opened, or the one its caller
 * opened already (a door that checked the caller's permission on it first); `verb` names the operation
 * in a refusal of the name.
 */
export function repositoryOf(env: OpEnv, repository: string | Repository, verb: string): Promise<Repository> {
  return typeof repository === "string" ? openRepository(env, repository, verb) : Promise.resolve(repository);
}
