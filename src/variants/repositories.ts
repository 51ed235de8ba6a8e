import { minimatch } from "minimatch";
import { matchesLabels } from "./label-selector.js";
import type { RepositorySelector } from "./set-schema.js";

/** A repository the GitHub App installation can reach: what sets select from and variants may name. */
export interface RepositoryInfo {
  /** The name variant files use, e.g. `cluster-01`. */
  name: string;
  /** `owner/name`, which variant files may use too. */
  fullName?: string;
  topics?: readonly string[];
  /**
   * The labels and annotations of its registration (the Repository object `repo register` keeps in the
   * namespace's `.porchlight` repository), which label selectors and expressions read, as Porch's.
   */
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
}

/** The repository a variant names, by `name` or `owner/name`. */
export function findRepository(
  ref: string,
  repositories: readonly RepositoryInfo[],
): RepositoryInfo | undefined {
  return repositories.find((r) => r.name === ref || r.fullName === ref);
}

/** The literal owner of an `owner/glob` name pattern (`other/cluster-*` → `other`); undefined otherwise. */
function ownerOf(glob: string): string | undefined {
  const [owner, rest, ...more] = glob.split("/");
  if (!owner || rest === undefined || more.length > 0 || /[*?[\]{}!+@()\\]/.test(owner)) return undefined;
  return owner.toLowerCase();
}

/**
 * The accounts a `repositorySelector` reaches into by name: the literal owner of each `names` glob written
 * `owner/…` (`other/cluster-*` → `other`). Only such a glob selects a repository of another installation
 * of the app; a bare glob stays within the management repository's installation.
 */
export function selectorAccounts(selector: RepositorySelector): string[] {
  const owners = (selector.names ?? []).map(ownerOf).filter((o): o is string => o !== undefined);
  return [...new Set(owners)].sort();
}

/**
 * The repositories a PackageVariantSet's `repositorySelector` picks, in the order given: a name matching
 * any of `names` (globs; all names when absent), none of `excludeNames`, every one of `topics`, and
 * registration labels matching `matchLabels` and `matchExpressions`.
 * A repository of another installation (named `owner/name`) is picked only by a `names` glob that spells
 * its owner (`other/cluster-*`, the owner in any case, as GitHub's): without one, a selector means the management repository's installation,
 * as before cross-installation fan-out.
 */
export function selectRepositories(
  selector: RepositorySelector,
  repositories: readonly RepositoryInfo[],
): RepositoryInfo[] {
  const matches = (r: RepositoryInfo, g: string) =>
    minimatch(r.name, g) || (r.fullName !== undefined && minimatch(r.fullName, g));
  const elsewhere = (r: RepositoryInfo) => r.name.includes("/");
  const owner = (r: RepositoryInfo) => r.name.split("/")[0]?.toLowerCase();
  const picked = (r: RepositoryInfo) =>
    selector.names?.length
      ? selector.names.some((g) =>
          elsewhere(r)
            ? ownerOf(g) === owner(r) &&
              minimatch(r.name.slice(r.name.indexOf("/") + 1), g.slice(g.indexOf("/") + 1))
            : matches(r, g),
        )
      : !elsewhere(r);
  return repositories.filter(
    (r) =>
      picked(r) &&
      !selector.excludeNames?.some((g) => matches(r, g)) &&
      (selector.topics ?? []).every((t) => r.topics?.includes(t)) &&
      matchesLabels(selector, r.labels),
  );
}
