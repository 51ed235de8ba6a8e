import type { HistoryCommit } from "../port.js";
import { type CacheClone, COMMIT_ID } from "./clone.js";

/** The full SHA of the fetched commit `rev` names (e.g. an abbreviated SHA), or undefined. */
export async function resolveCommit(clone: CacheClone, rev: string): Promise<string | undefined> {
  await clone.init();
  const out = await clone.git(["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]).catch(() => undefined);
  return out?.toString("utf8").trim() || undefined;
}

/** The commits of fetched `head` not reachable from fetched `base`, newest first, with their authors. */
export async function log(
  clone: CacheClone,
  base: string,
  head: string,
): Promise<{ sha: string; name: string; email: string }[]> {
  const out = await clone.git(["log", "--format=%H%x00%an%x00%ae", `${base}..${head}`]);
  return out
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [sha, name, email] = l.split("\0") as [string, string, string];
      return { sha, name, email };
    });
}

/** Up to `limit` commits reachable from `head` (a commit this clone has), newest first by committer date. */
export async function history(clone: CacheClone, head: string, limit: number): Promise<HistoryCommit[]> {
  const log = await clone.git([
    "log",
    "--date-order",
    `--max-count=${limit}`,
    "--format=%H%x00%ae%x00%aI%x00%B%x1e",
    head,
  ]);
  return log
    .toString("utf8")
    .split("\x1e")
    .flatMap((entry) => {
      const [sha, authorEmail, date, ...rest] = entry.split("\0");
      if (sha === undefined || date === undefined || rest.length === 0) return [];
      const message = rest.join("\0");
      return [{ sha: sha.trim(), message, authorEmail: authorEmail ?? "", authorDate: new Date(date) }];
    });
}

/** The committer date of `sha`. */
export async function commitTime(clone: CacheClone, sha: string): Promise<Date> {
  const out = await clone.git(["show", "-s", "--format=%cI", sha]);
  return new Date(out.toString("utf8").trim());
}

/**
 * When each file below `dir` was last added in the history of fetched `head` (newest first, the first
 * add of a path seen is its newest): one `git log --diff-filter=A`. Paths relative to `dir`.
 */
export async function addedAt(clone: CacheClone, head: string, dir: string): Promise<Map<string, Date>> {
  const args = ["log", "--diff-filter=A", "--no-renames", "--name-only", "-z", "--format=%x1e%cI", head];
  const out = await clone.git([...args, "--", dir === "" ? "." : dir]);
  const prefix = dir === "" ? "" : `${dir.replace(/\/+$/, "")}/`;
  const added = new Map<string, Date>();
  for (const entry of out.toString("utf8").split("\x1e")) {
    const [head = "", ...paths] = entry.split("\0");
    // the date, a line break, then the paths each ended by a NUL (the first after the break)
    const [date = "", first = ""] = head.split("\n").map((l) => l.trim());
    const at = new Date(date);
    if (Number.isNaN(at.getTime())) continue;
    for (const path of [first, ...paths].map((p) => p.replace(/^\n/, "")).filter(Boolean))
      if (path.startsWith(prefix) && !added.has(path.slice(prefix.length)))
        added.set(path.slice(prefix.length), at);
  }
  return added;
}

/** The paths `head` changes since its merge base with `base`: both commits fetched, named by their ids. */
export async function changedPaths(clone: CacheClone, base: string, head: string): Promise<string[]> {
  const out = await clone.git(["diff", "--name-only", "-z", "--no-renames", `${base}...${head}`]);
  const paths = out.toString("utf8").split("\0").filter(Boolean);
  clone.blobs?.setChangedPaths(clone.gitDir, base, head, paths);
  return paths;
}

/** changedPaths' answer for two commit ids asked before (in any job), with nothing fetched or run. */
export function changedPathsKnown(clone: CacheClone, base: string, head: string): string[] | undefined {
  if (!COMMIT_ID.test(base) || !COMMIT_ID.test(head)) return undefined;
  const known = clone.blobs?.changedPaths(clone.gitDir, base, head);
  return known && [...known];
}

/** The first parent of fetched commit `sha` and the paths below `dir` (relative to it) it changed: one `diff-tree`. */
export async function parentChange(
  clone: CacheClone,
  sha: string,
  dir = "",
): Promise<{ parent: string | null; paths: string[] }> {
  const args = ["diff-tree", "-r", "-z", "--no-renames", "--name-only", "--root", "-m", "--first-parent"];
  args.push("--always", "--format=%P", sha);
  if (dir !== "") args.push("--", dir);
  // The parents, then (after a line break) each path, every field ended by a NUL.
  const [parents = "", ...paths] = (await clone.git(args)).toString("utf8").split("\0");
  return {
    parent: parents.trim().split(" ")[0] || null,
    paths: paths
      .map((p) => p.replace(/^\n/, ""))
      .filter(Boolean)
      .map((p) => (dir === "" ? p : p.slice(dir.length + 1))),
  };
}

/**
 * The newest commit of fetched `head`'s first-parent line that changed something below each of `dirs`
 * against its first parent (a directory's package: its last change on the branch, a publish's merge
 * commit rather than the draft's commits it brought), by directory: one `git log`. With `since` (a commit this clone
 * has, an ancestor of `head`), only the commits after it are read and only the directories they changed
 * are answered; when `since` is not an ancestor (the branch was rewritten), the whole history is read.
 */
export async function lastChanges(
  clone: CacheClone,
  head: string,
  dirs: readonly string[],
  since?: string,
): Promise<Map<string, string>> {
  const wanted = [...new Set(dirs.map((d) => d.replace(/\/+$/, "")))].filter((d) => d !== "");
  const out = new Map<string, string>();
  if (wanted.length === 0) return out;
  let range = head;
  if (since !== undefined && since !== head) {
    const ancestor = await clone.git(["merge-base", "--is-ancestor", since, head]).then(
      () => true,
      () => false,
    );
    if (ancestor) range = `${since}..${head}`;
  } else if (since === head) return out;
  // the branch's own line (a merge is the change it brought, against its first parent), as it landed
  const line = ["--first-parent", "--diff-merges=first-parent"];
  const args = [
    "log",
    ...line,
    "--no-renames",
    "--name-only",
    "-z",
    "--format=%x1e%H",
    range,
    "--",
    ...wanted,
  ];
  const log = await clone.git(args);
  for (const entry of log.toString("utf8").split("\x1e")) {
    const [first = "", ...rest] = entry.split("\0");
    // the commit id, a line break, then the paths each ended by a NUL (the first after the break)
    const [sha = "", path0 = ""] = first.split("\n");
    if (!COMMIT_ID.test(sha.trim())) continue;
    for (const path of [path0, ...rest].map((p) => p.replace(/^\n/, "")).filter(Boolean))
      for (const dir of wanted) if (!out.has(dir) && path.startsWith(`${dir}/`)) out.set(dir, sha.trim());
    if (out.size === wanted.length) break;
  }
  return out;
}
