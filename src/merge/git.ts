import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileTree } from "../kpt/tree.js";

/**
 * The git side of `pkg get` / `pkg update`: fetch an upstream repository (local path, file:// or
 * https URL) into a temporary bare repository, resolve a branch, tag or commit, and read a directory
 * at a commit into a FileTree. Uses the `git` CLI; nothing is written outside the temp directory.
 */

export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GitError";
  }
}

function git(args: string[], opts: { cwd?: string; input?: Buffer } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args,
      {
        cwd: opts.cwd,
        encoding: "buffer",
        maxBuffer: 1 << 30,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
      },
      (err, stdout, stderr) => {
        if (err) reject(new GitError(`git ${args[0]}: ${stderr.toString().trim() || err.message}`));
        else resolve(stdout);
      },
    );
    if (opts.input) child.stdin?.end(opts.input);
  });
}

export function runGit(args: string[], cwd?: string): Promise<string> {
  return git(args, { cwd }).then((b) => b.toString("utf8"));
}

/** A fetched upstream: resolve refs and read trees; `close()` removes the temp repository. */
export interface FetchedRepo {
  url: string;
  resolve(ref: string, directory: string): Promise<string>;
  readDir(commit: string, directory: string): Promise<FileTree>;
  defaultBranch(): Promise<string>;
  close(): Promise<void>;
}

export async function fetchRepo(url: string): Promise<FetchedRepo> {
  const dir = await mkdtemp(join(tmpdir(), "porchlight-upstream-"));
  try {
    await git(["init", "--quiet", "--bare", dir]);
    await git(
      [
        "fetch",
        "--quiet",
        "--no-tags",
        url,
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
      ],
      { cwd: dir },
    ).catch((err: GitError) => {
      throw new GitError(
        `cannot reach upstream repository "${url}": ${err.message.replace(/^git fetch: /, "")}`,
      );
    });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    async resolve(ref, directory) {
      const d = directory.replace(/^\/+|\/+$/g, "");
      const candidates = [
        ...(d ? [`refs/tags/${d}/${ref}`] : []),
        `refs/tags/${ref}`,
        `refs/remotes/origin/${ref}`,
        ref,
      ];
      for (const c of candidates) {
        const out = await runGit(["rev-parse", "--verify", "--quiet", `${c}^{commit}`], dir).catch(() => "");
        if (out.trim()) return out.trim();
      }
      throw new GitError(
        `ref "${ref}" does not exist in upstream repository "${url}" (no such branch, tag or commit)`,
      );
    },
    async readDir(commit, directory) {
      const d = directory.replace(/^\/+|\/+$/g, "");
      const listing = await git(["ls-tree", "-r", "-z", "--full-tree", commit, ...(d ? ["--", d] : [])], {
        cwd: dir,
      });
      const entries = listing
        .toString("utf8")
        .split("\0")
        .filter(Boolean)
        .map((line) => {
          const tab = line.indexOf("\t");
          const [mode, type, sha] = line.slice(0, tab).split(" ");
          return { mode: mode!, type: type!, sha: sha!, path: line.slice(tab + 1) };
        })
        .filter((e) => e.type === "blob" && e.mode !== "120000");
      const tree: FileTree = new Map();
      if (entries.length === 0) return tree;
      const out = await git(["cat-file", "--batch"], {
        cwd: dir,
        input: Buffer.from(entries.map((e) => `${e.sha}\n`).join("")),
      });
      let pos = 0;
      for (const e of entries) {
        const nl = out.indexOf(10, pos);
        const size = Number(out.subarray(pos, nl).toString().split(" ")[2]);
        const body = out.subarray(nl + 1, nl + 1 + size);
        pos = nl + 1 + size + 1;
        const rel = d ? e.path.slice(d.length + 1) : e.path;
        tree.set(rel, Buffer.from(body));
      }
      return tree;
    },
    async defaultBranch() {
      const out = await runGit(["ls-remote", "--symref", url, "HEAD"]).catch(() => "");
      const m = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(out);
      return m?.[1] ?? "main";
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Whether `dir` has uncommitted changes in the git working tree holding it (false outside git). */
export async function isDirty(dir: string): Promise<boolean> {
  const inside = await runGit(["rev-parse", "--is-inside-work-tree"], dir).catch(() => "");
  if (inside.trim() !== "true") return false;
  const status = await runGit(["status", "--porcelain", "--untracked-files=all", "--", "."], dir);
  return status.trim() !== "";
}
