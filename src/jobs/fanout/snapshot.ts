import type { InstallationRepository, PullRequest, RepoPort } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { VARIANT_PREFIX } from "../../lifecycle/variant-branch.js";

/** One repository as a fan-out run read it: refs, its base branch's files, and its open fan-out pull requests. */
export interface RepoSnapshot {
  repository: InstallationRepository;
  port: RepoPort;
  refs: RefInfo[];
  branches: Map<string, string>;
  tags: Map<string, string>;
  /** The default branch's head; undefined for an empty repository. */
  baseSha: string | undefined;
  /** Every file on the default branch (by git). */
  tree: FileTree;
  /** Open pull requests from `porchlight/variant/…` branches (listed only when such a branch exists). */
  pulls: PullRequest[];
}

/**
 * Reads a repository for fan-out with git for content (one ls-remote, one fetch) and REST only for pull
 * request metadata, and only when a fan-out branch exists.
 */
export async function readSnapshot(
  repository: InstallationRepository,
  port: RepoPort,
): Promise<RepoSnapshot> {
  const refs = await port.listRefs();
  const { branches, tags } = indexRefs(refs);
  const baseSha = branches.get(repository.defaultBranch);
  const tree = baseSha ? (await port.readTree(baseSha)).tree : new Map<string, Buffer>();
  const hasVariantBranch = [...branches.keys()].some((b) => b.startsWith(VARIANT_PREFIX));
  const pulls = hasVariantBranch
    ? (await port.listOpenPulls()).filter((p) => p.headRef.startsWith(VARIANT_PREFIX))
    : [];
  return { repository, port, refs, branches, tags, baseSha, tree, pulls };
}

/** The short name variants use for a repository (`cluster-01` for `acme/cluster-01`). */
export function shortName(repository: InstallationRepository): string {
  return repository.id.repo;
}
