import type { PackageRevision } from "../lifecycle/index.js";
import { findRevision } from "./names.js";
import { openRepository, type RepoState, type Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * The repository an operation names (its registered name or OWNER/REPO), opened, or the one its caller
 * opened already (a door that checked the caller's permission on it first); `verb` names the operation
 * in a refusal of the name.
 */
export function repositoryOf(env: OpEnv, repository: string | Repository, verb: string): Promise<Repository> {
  return typeof repository === "string" ? openRepository(env, repository, verb) : Promise.resolve(repository);
}

/** The revision `name` names in the repository, with the repository's revisions as read (a not-found listing what exists otherwise). */
export async function revisionOf(
  env: OpEnv,
  repository: string | Repository,
  verb: string,
  name: string,
): Promise<{ repo: Repository; state: RepoState; rev: PackageRevision }> {
  const repo = await repositoryOf(env, repository, verb);
  const state = await repo.load();
  return { repo, state, rev: findRevision(repo, state, name) };
}
