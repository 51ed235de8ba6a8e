import { promises as fs } from "node:fs";
import { join } from "node:path";

/**
 * Commits read through the long-lived reader before a question about history goes to git: a push, a
 * pull request or a comparison usually spans a few commits of one line; a longer or branching history
 * is git's (merge-base, rev-list), which walks it faster than reads one by one.
 */
const WALK_LIMIT = 50;

/** A commit's parents as stored, or null when the repository has no such commit. */
export type ParentsOf = (sha: string) => Promise<string[] | null>;

/** Where a walk ended: at the commit it was to stop at, or at a root commit (no parents). */
export interface Line {
  /** The commits walked, newest first: `from` first, `stop` not among them, a root last. */
  commits: string[];
  reached: "stop" | "root";
}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Whether git reads this repository's history as its commits store it: no shallow file, no grafts, no
 * replace refs. Where it may not, git answers every question about history.
 */
export async function historyAsStored(dir: string): Promise<boolean> {
  for (const path of ["shallow", join("info", "grafts"), join("refs", "replace")]) {
    try {
      await fs.lstat(join(dir, path));
      return false;
    } catch (err) {
      if (errCode(err) !== "ENOENT") return false;
    }
  }
  try {
    return !(await fs.readFile(join(dir, "packed-refs"), "utf8")).includes(" refs/replace/");
  } catch (err) {
    return errCode(err) === "ENOENT";
  }
}

/**
 * The commits from `from` back through their parents while history is one line — each commit with one
 * parent, the last possibly with none — until `stop` (null: a root). null where that cannot answer:
 * a merge commit on the way, a missing commit, more than WALK_LIMIT commits.
 */
export async function lineBack(
  parentsOf: ParentsOf,
  from: string,
  stop: string | null,
): Promise<Line | null> {
  const commits: string[] = [];
  let at = from;
  while (commits.length < WALK_LIMIT) {
    if (at === stop) return { commits, reached: "stop" };
    const parents = await parentsOf(at);
    if (!parents || parents.length > 1) return null;
    commits.push(at);
    if (parents.length === 0) return { commits, reached: "root" };
    at = parents[0]!;
  }
  return null;
}
