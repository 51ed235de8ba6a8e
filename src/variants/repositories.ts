import { minimatch } from "minimatch";
import type { RepositorySelector } from "./set-schema.js";

/** A repository the GitHub App installation can reach: what sets select from and variants may name. */
export interface RepositoryInfo {
  /** The name variant files use, e.g. `cluster-01`. */
  name: string;
  /** `owner/name`, which variant files may use too. */
  fullName?: string;
  topics?: readonly string[];
}

/** The repository a variant names, by `name` or `owner/name`. */
export function findRepository(
  ref: string,
  repositories: readonly RepositoryInfo[],
): RepositoryInfo | undefined {
  return repositories.find((r) => r.name === ref || r.fullName === ref);
}

/**
 * The repositories a PackageVariantSet's `repositorySelector` picks, in the order given: a name matching
 * any of `names` (globs; all names when absent), none of `excludeNames`, and every one of `topics`.
 */
export function selectRepositories(
  selector: RepositorySelector,
  repositories: readonly RepositoryInfo[],
): RepositoryInfo[] {
  const matchesName = (r: RepositoryInfo, globs: readonly string[]) =>
    globs.some((g) => minimatch(r.name, g) || (r.fullName !== undefined && minimatch(r.fullName, g)));
  return repositories.filter(
    (r) =>
      (!selector.names?.length || matchesName(r, selector.names)) &&
      !(selector.excludeNames?.length && matchesName(r, selector.excludeNames)) &&
      (selector.topics ?? []).every((t) => r.topics?.includes(t)),
  );
}
