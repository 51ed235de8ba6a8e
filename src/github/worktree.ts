import { runGit } from "./git-process.js";

/**
 * Questions about a local git working tree (the directory a user runs `porchlight pkg` in), asked
 * through git-process.ts like every other git call.
 */

/**
 * Whether `dir` has uncommitted changes (modified, staged or untracked files below it) in the git
 * working tree holding it; false when `dir` is not in a git working tree.
 */
export async function hasUncommittedChanges(dir: string): Promise<boolean> {
  const inside = await runGit(["rev-parse", "--is-inside-work-tree"], { cwd: dir }).catch(() => undefined);
  if (inside?.toString("utf8").trim() !== "true") return false;
  const status = await runGit(["status", "--porcelain", "--untracked-files=all", "--", "."], { cwd: dir });
  return status.toString("utf8").trim() !== "";
}
