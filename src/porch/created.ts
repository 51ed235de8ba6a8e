import { indexRefs, type PackageRevision } from "../lifecycle/index.js";
import { timestamp } from "./objects.js";
import type { RepoState, Repository } from "./repository.js";

/**
 * When each revision began, from git alone, so the same on every read and across restarts: a draft's
 * (or a proposal's) first commit on its branch, past the base branch (its branch's head when it has none
 * of its own); a published revision's tagged commit; the placeholder's (`.main`) its branch's head.
 * Porch's `metadata.creationTimestamp`, which `kubectl get --sort-by=.metadata.creationTimestamp` and
 * AGE read. Committer dates, one git question or two a revision.
 */
export async function readCreationTimes(
  loaded: readonly { repo: Repository; state: RepoState }[],
  revisions: readonly PackageRevision[],
  repoFor: (r: PackageRevision) => Repository,
): Promise<Map<PackageRevision, Date>> {
  const bases = new Map(
    loaded.map(({ repo, state }) => [repo, indexRefs(state.refs).branches.get(repo.baseBranch)] as const),
  );
  const out = new Map<PackageRevision, Date>();
  await Promise.all(
    revisions.map(async (rev) => {
      const repo = repoFor(rev);
      const port = repo.conn.port;
      const base = bases.get(repo);
      let first = rev.sha;
      if ((rev.lifecycle === "Draft" || rev.lifecycle === "Proposed") && base && base !== rev.sha) {
        const own = await port.listCommits(base, rev.sha);
        first = own[own.length - 1]?.sha ?? rev.sha;
      }
      out.set(rev, await port.commitTime(first));
    }),
  );
  return out;
}

/** `obj` with its `metadata.creationTimestamp` (RFC 3339 in UTC, to the second), where known. */
export function withCreationTime<T extends { metadata?: unknown }>(obj: T, at: Date | undefined): T {
  if (!at) return obj;
  return { ...obj, metadata: { ...(obj.metadata as object), creationTimestamp: timestamp(at) } };
}
