import type { CheckRunState, RepoId } from "./port.js";

/** A run as kept: its state, and how many annotations it holds (an update appends to them). */
type OwnRun = CheckRunState & { annotations: number };

/** Commits whose runs are kept at most (the oldest let go first): a draft's heads of the last hours. */
const MAX_COMMITS = 4096;

/**
 * The app's own check runs of each commit it listed, for the process's life, kept up to date with every
 * run it writes there since: a job that asks about the app's own checks on a commit a job before it
 * listed (and then wrote to: render, then the proposal's checks, then the approval) is answered here,
 * where GitHub would answer in full, counted, the listing the app's own write just changed. Only a
 * commit listed in this process is answered (what a process before it wrote is not known here), only
 * for runs the asker names (another app's, CI's, are always asked of GitHub), and only in one process:
 * a fleet's replicas each write, so there every question goes to GitHub (server.ts gives none).
 */
export class OwnCheckRuns {
  private readonly commits = new Map<string, OwnRun[]>();

  private static key(repo: RepoId, sha: string): string {
    return `${repo.owner.toLowerCase()}/${repo.repo.toLowerCase()}@${sha}`;
  }

  /** The runs named `names` on `sha`, newest first; undefined when this process has not listed it. */
  runs(repo: RepoId, sha: string, names: readonly string[]): CheckRunState[] | undefined {
    const held = this.commits.get(OwnCheckRuns.key(repo, sha));
    return held?.filter((r) => names.includes(r.name)).map(({ annotations: _, ...state }) => state);
  }

  /**
   * The newest run named `name` on `sha` with its annotations' count: undefined when there is none,
   * "unknown" when this process has not listed the commit.
   */
  latest(
    repo: RepoId,
    sha: string,
    name: string,
  ): { id: number; annotations: number } | undefined | "unknown" {
    const held = this.commits.get(OwnCheckRuns.key(repo, sha));
    if (!held) return "unknown";
    const run = held.find((r) => r.name === name);
    return run && { id: run.id, annotations: run.annotations };
  }

  /** What GitHub listed for `sha` (every run: the asker filters). */
  listed(repo: RepoId, sha: string, runs: readonly (CheckRunState & { annotations?: number })[]): void {
    const key = OwnCheckRuns.key(repo, sha);
    this.commits.delete(key);
    this.commits.set(
      key,
      runs.map((r) => ({ ...r, annotations: r.annotations ?? 0 })),
    );
    while (this.commits.size > MAX_COMMITS) {
      const oldest = this.commits.keys().next().value;
      if (oldest === undefined) break;
      this.commits.delete(oldest);
    }
  }

  /** What the app wrote to `sha` is not all known (a write failed part way): asked of GitHub next time. */
  forget(repo: RepoId, sha: string): void {
    this.commits.delete(OwnCheckRuns.key(repo, sha));
  }

  /**
   * A run the app created or updated on `sha`, with the fields it sent (an update leaves the external id
   * it does not send, and a run no longer completed has no conclusion): kept when the commit's runs are,
   * else asked of GitHub next time.
   */
  wrote(
    repo: RepoId,
    sha: string,
    run: Pick<OwnRun, "id" | "name" | "status"> & {
      conclusion?: string;
      externalId?: string;
      /** The annotations the write sent with a new output; absent: the output was left as it was. */
      annotations?: number;
    },
  ): void {
    const held = this.commits.get(OwnCheckRuns.key(repo, sha));
    if (!held) return;
    const i = held.findIndex((r) => r.id === run.id);
    const before = i >= 0 ? held[i] : undefined;
    const now: OwnRun = {
      id: run.id,
      name: run.name,
      headSha: sha,
      status: run.status,
      conclusion: run.status === "completed" ? (run.conclusion ?? before?.conclusion ?? null) : null,
      externalId: run.externalId ?? before?.externalId ?? null,
      annotations: (before?.annotations ?? 0) + (run.annotations ?? 0),
    };
    if (i >= 0) held[i] = now;
    else held.unshift(now);
  }
}
