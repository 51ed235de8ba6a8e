import { type FileTree, fileOf } from "../../kpt/tree.js";
import type { TreeEntry } from "../object-cache.js";
import type { FileEntry } from "../port.js";
import type { CacheClone } from "./clone.js";

/** How many trees a GitRepo keeps listed (`entries`). */
const LISTED_KEPT = 8;

/**
 * Commits' trees as a GitRepo reads them: listed by `git ls-tree` (or from the app's GitObjectCache),
 * the last few listings kept for the instance, and the files' bytes read by one `cat-file --batch` for
 * the blobs the cache lacks.
 */
export class TreeReader {
  /**
   * The last trees listed (`sha` and directory, the newest last): a job lists a package's files, then
   * reads them. A Map kept to LISTED_KEPT, not lru-cache, whose Node build loads perf_hooks and
   * diagnostics_channel when first imported — a tenth of `rpkg get`'s start, for eight entries.
   */
  private readonly listed = new Map<string, Promise<TreeEntry[]>>();

  constructor(private readonly clone: CacheClone) {}

  /** The blobs of commit `sha` below `dir` ("" = all): one `ls-tree`, remembered for the instance's next question. */
  entries(sha: string, dir: string): Promise<TreeEntry[]> {
    const key = `${sha}\0${dir}`;
    let listed = this.listed.get(key);
    // the newest last: taken out and put back, so the oldest is the first to go
    this.listed.delete(key);
    if (!listed) {
      const known = this.clone.blobs?.tree(this.clone.gitDir, sha, dir);
      listed = known ? Promise.resolve([...known]) : this.lsTree(sha, dir);
      listed.catch(() => {
        if (this.listed.get(key) === listed) this.listed.delete(key);
      });
    }
    // A commit's tree never changes; a few are kept (a job reads a head, its base, a tag).
    this.listed.set(key, listed);
    for (const oldest of this.listed.keys()) {
      if (this.listed.size <= LISTED_KEPT) break;
      this.listed.delete(oldest);
    }
    return listed;
  }

  private async lsTree(sha: string, dir: string): Promise<TreeEntry[]> {
    const args = ["ls-tree", "-r", "-z", "-l", "--full-tree", sha];
    if (dir !== "") args.push("--", dir);
    const entries = (await this.clone.git(args))
      .toString("utf8")
      .split("\0")
      .filter(Boolean)
      .flatMap((line) => {
        const tab = line.indexOf("\t");
        const [mode, type, id, size] = line.slice(0, tab).split(/ +/) as [string, string, string, string];
        if (type !== "blob") return [];
        const path = line.slice(tab + 1);
        return [{ mode, id, size: Number(size), path: dir === "" ? path : path.slice(dir.length + 1) }];
      });
    this.clone.blobs?.setTree(this.clone.gitDir, sha, dir, entries);
    return entries;
  }

  /** The files of commit `sha` below `dir` ("" = all) with their sizes, from the tree alone (no blob is read). */
  async listFiles(sha: string, dir = ""): Promise<FileEntry[]> {
    return (await this.entries(sha, dir)).map((e) => ({ path: e.path, size: e.size }));
  }

  /**
   * The files of commit `sha` below `dir` ("" = all), paths relative to `dir`, with their blob ids and
   * the paths that are symbolic links (mode 120000). Only the blobs the GitObjectCache lacks are read.
   */
  async readFiles(
    sha: string,
    dir = "",
  ): Promise<{ tree: FileTree; blobs: Map<string, string>; symlinks: string[] }> {
    const entries = await this.entries(sha, dir);
    const tree: FileTree = new Map();
    const blobs = new Map<string, string>();
    const symlinks: string[] = [];
    const missing: TreeEntry[] = [];
    for (const e of entries) {
      blobs.set(e.path, e.id);
      if (e.mode === "120000") symlinks.push(e.path);
      const kept = this.clone.blobs?.get(this.clone.gitDir, e.id);
      if (kept) tree.set(e.path, kept);
      else missing.push(e);
    }
    if (missing.length > 0) {
      const batch = await this.clone.git(["cat-file", "--batch"], `${missing.map((e) => e.id).join("\n")}\n`);
      let offset = 0;
      for (const entry of missing) {
        const nl = batch.indexOf(10, offset);
        // `<id> blob <size>`, or `<id> missing`: a blob the clone lacks is an error, never an empty file
        // (kept in the blob cache, it would be read as empty for the process's life)
        const [, type, sized] = batch.subarray(offset, nl).toString("utf8").split(" ");
        const size = Number(sized);
        if (nl < 0 || type !== "blob" || !Number.isInteger(size))
          throw new Error(
            `${this.clone.url}: ${entry.path} (blob ${entry.id}) of commit ${sha} is missing from the cache clone; asking again reads it afresh`,
          );
        const start = nl + 1;
        const bytes = Buffer.from(batch.subarray(start, start + size));
        this.clone.blobs?.set(this.clone.gitDir, entry.id, bytes);
        tree.set(entry.path, bytes);
        offset = start + size + 1;
      }
    }
    // In the tree's order, whichever way each file came.
    const ordered: FileTree = new Map();
    for (const e of entries) ordered.set(e.path, fileOf(tree, e.path));
    return { tree: ordered, blobs, symlinks };
  }

  /** The paths below `dir` (relative to it) of commit `sha` that are symbolic links (mode 120000). */
  async symlinks(sha: string, dir = ""): Promise<string[]> {
    return (await this.entries(sha, dir)).filter((e) => e.mode === "120000").map((e) => e.path);
  }
}
