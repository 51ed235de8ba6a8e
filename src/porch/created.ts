import { indexRefs, type PackageRevision } from "../lifecycle/index.js";
import { timestamp } from "./objects.js";
import type { RepoState, Repository } from "./repository.js";

/**
 * When each revision began, from git alone, so the same on every read and across restarts: a draft's
 * (or a proposal's) first commit on its branch, past the base branch (its branch's head when it has none
 * of its own); a published revision's tagged commit; the placeholder's (`.main`) its package's last
 * change on the branch (as Porch dates a branch's package by its latest commit, not the branch's head).
 * Porch's `metadata.creationTimestamp`, which `kubectl get --sort-by=.metadata.creationTimestamp` and
 * AGE read. Committer dates, one git question or two a revision, and one a branch for its placeholders.
 */
export async function readCreationTimes(
  loaded: readonly { repo: Repository; state: RepoState }[],
  revisions: readonly PackageRevision[],
  repoFor: (r: PackageRevision) => Repository,
): Promise<Map<PackageRevision, Date>> {
  const bases = new Map(
    loaded.map(({ repo, state }) => [repo, indexRefs(state.refs).branches.get(repo.baseBranch)] as const),
  );
  const lastChange = placeholderChanges(revisions, repoFor);
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
      } else if (rev.revision === PLACEHOLDER) first = (await lastChange(rev)) ?? rev.sha;
      out.set(rev, await port.commitTime(first));
    }),
  );
  return out;
}

/** A branch's package revision (`.main`): Porch's revision number for it. */
export const PLACEHOLDER = -1;

/**
 * The last change of each placeholder's package, asked of git once per repository and commit for all
 * the placeholders there (lastChanges).
 */
function placeholderChanges(
  revisions: readonly PackageRevision[],
  repoFor: (r: PackageRevision) => Repository,
): (rev: PackageRevision) => Promise<string | undefined> {
  const asked = new Map<string, Promise<Map<string, string>>>();
  return (rev) => {
    const repo = repoFor(rev);
    const key = `${repo.full}\n${rev.sha}`;
    let answer = asked.get(key);
    if (!answer) {
      const dirs = revisions
        .filter((r) => r.revision === PLACEHOLDER && r.sha === rev.sha && repoFor(r) === repo)
        .map((r) => repo.packageDir(r.package));
      answer = repo.conn.port.lastChanges(rev.sha, dirs);
      asked.set(key, answer);
    }
    return answer.then((m) => m.get(repo.packageDir(rev.package)));
  };
}

/** `obj` with its `metadata.creationTimestamp` (RFC 3339 in UTC, to the second), where known. */
export function withCreationTime<T extends { metadata?: unknown }>(obj: T, at: Date | undefined): T {
  if (!at) return obj;
  return { ...obj, metadata: { ...(obj.metadata as object), creationTimestamp: timestamp(at) } };
}
