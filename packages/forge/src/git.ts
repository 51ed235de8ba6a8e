import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import { type CatFileObject, CatFileReader, ReaderGone } from "./catfile.js";
import { runInHelper } from "./helper.js";
import { historyAsStored, lineBack, type ParentsOf } from "./history.js";
import { PackedRefsMemo, readRef, readRefs } from "./reffiles.js";

export interface GitPerson {
  name: string;
  email: string;
  /** ISO 8601 UTC. */
  date: string;
}

export interface GitCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: GitPerson;
  committer: GitPerson;
  message: string;
}

export interface TreeEntry {
  mode: string;
  type: "blob" | "tree" | "commit";
  sha: string;
  size: number;
  path: string;
}

export interface FileChange {
  status: "added" | "removed" | "modified" | "renamed";
  filename: string;
  previousFilename?: string;
  sha: string;
  additions: number;
  deletions: number;
}

export const ZERO_SHA = "0000000000000000000000000000000000000000";

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
};

/**
 * Runs git in a bare repository, from the forge's helper process (helper.ts: not forked from the large
 * process the forge runs in); rejects with git's stderr.
 */
export async function runGit(
  gitDir: string,
  args: string[],
  opts: { input?: string | Buffer; env?: Record<string, string>; allowFail?: boolean } = {},
): Promise<{ stdout: string; code: number }> {
  const ran = await runInHelper(
    { file: "git", args: ["--git-dir", gitDir, ...args], env: { ...process.env, ...GIT_ENV, ...opts.env } },
    opts.input,
  );
  const code = ran.code ?? 1;
  if (code !== 0 && !opts.allowFail)
    throw new Error(`git ${args.join(" ")}: ${ran.stderr || `exited ${ran.code ?? "on a signal"}`}`);
  return { stdout: ran.stdout.toString("utf8"), code };
}

function personFrom(line: string): GitPerson {
  const m = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!m) return { name: line, email: "", date: new Date(0).toISOString() };
  return { name: m[1]!, email: m[2]!, date: `${new Date(Number(m[3]) * 1000).toISOString().slice(0, 19)}Z` };
}

function parseCommit(sha: string, text: string): GitCommit {
  const split = text.indexOf("\n\n");
  const head = split >= 0 ? text.slice(0, split) : text;
  const message = split >= 0 ? text.slice(split + 2) : "";
  const c: GitCommit = {
    sha,
    tree: "",
    parents: [],
    author: personFrom(""),
    committer: personFrom(""),
    message,
  };
  for (const line of head.split("\n")) {
    const sp = line.indexOf(" ");
    const key = line.slice(0, sp);
    const val = line.slice(sp + 1);
    if (key === "tree") c.tree = val;
    else if (key === "parent") c.parents.push(val);
    else if (key === "author") c.author = personFrom(val);
    else if (key === "committer") c.committer = personFrom(val);
  }
  return c;
}

function parseTag(text: string): {
  object: string;
  type: string;
  tag: string;
  tagger: GitPerson;
  message: string;
} {
  const split = text.indexOf("\n\n");
  const fields = new Map<string, string>();
  for (const line of text.slice(0, split).split("\n")) {
    const sp = line.indexOf(" ");
    fields.set(line.slice(0, sp), line.slice(sp + 1));
  }
  return {
    object: fields.get("object") ?? "",
    type: fields.get("type") ?? "commit",
    tag: fields.get("tag") ?? "",
    tagger: personFrom(fields.get("tagger") ?? ""),
    message: text.slice(split + 2),
  };
}

/**
 * A tree object's entries as `ls-tree` shows them: the mode as git canonicalises it, six octal digits
 * (a tree's `40000` is `040000`, a group-writable file's `100664` is `100644`), the type the mode
 * implies, sizes left to the caller.
 */
function parseTree(bytes: Buffer, path: string): TreeEntry[] {
  const out: TreeEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    const sp = bytes.indexOf(32, at);
    const nul = bytes.indexOf(0, sp + 1);
    if (sp < 0 || nul < 0 || nul + 21 > bytes.length) throw new Error("git: a malformed tree object");
    const raw = Number.parseInt(bytes.toString("latin1", at, sp), 8);
    const name = bytes.toString("utf8", sp + 1, nul);
    const sha = bytes.toString("hex", nul + 1, nul + 21);
    at = nul + 21;
    const kind = raw & 0o170000;
    const mode =
      kind === 0o100000
        ? raw & 0o100
          ? 0o100755
          : 0o100644
        : kind === 0o120000 || kind === 0o40000
          ? kind
          : 0o160000;
    out.push({
      mode: mode.toString(8).padStart(6, "0"),
      type: mode === 0o40000 ? "tree" : mode === 0o160000 ? "commit" : "blob",
      sha,
      size: 0,
      path: path ? `${path}/${name}` : name,
    });
  }
  return out;
}

/** A full object id: what a long-lived reader may answer for (its object never changes). */
const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * Readers kept running at once; past this the least recently used one is closed. A forge serving a few
 * hundred repositories keeps the busy ones' processes, not one per repository ever read.
 */
const MAX_READERS = 32;

/**
 * Loose refs past which a push packs the repository's refs into packed-refs (`tidyIfMany`). A ref
 * listing reads each loose ref's file, and a publish in Porch's iterative test listed its repository's
 * refs 14 times (each push twice, for its events; REST reads of refs, statuses, contents): with a tag
 * for each published revision, a file more each time. One `git pack-refs` in 16 refs written costs less
 * than the reads it saves. git leaves this to `git gc` and `git maintenance`, which a bare repository
 * served over HTTP never runs; GitHub's servers run them.
 */
const PACK_REFS_AT = 16;

/** Answers kept per repository by `settled`; past this the least recently asked is dropped. */
const MAX_SETTLED = 512;

/** The bare repositories of a forge, at `<root>/<owner>/<name>.git`. */
export class GitStore {
  /**
   * One `git cat-file --batch-command` per repository read; the least recently used one past
   * MAX_READERS is closed, and its repository's answers forgotten, as `forget` does.
   */
  private readonly readers = new LRUCache<string, CatFileReader>({
    max: MAX_READERS,
    dispose: (reader, dir, reason) => {
      if (reason === "evict") this.retire(dir, reader);
    },
  });
  private readonly closing = new Set<Promise<void>>();
  private stopped = false;
  /**
   * Answers computed from object ids alone (merge bases, merges, diffs, commit ranges), by repository:
   * a pull request's facts are asked for at every read of it, of the same base and head until one moves.
   */
  private readonly answers = new Map<string, LRUCache<string, Promise<unknown>>>();
  /** Loose refs each repository's last listing read, by directory (`tidyIfMany`). */
  private readonly loose = new Map<string, number>();
  /** Each repository's packed-refs as last parsed, kept while the file is the same (reffiles.ts). */
  private readonly packed = new PackedRefsMemo();

  constructor(readonly root: string) {}

  /** Ends every reader and waits for their processes; reads after this start a process each. */
  async close(): Promise<void> {
    this.stopped = true;
    for (const dir of [...this.readers.keys()]) this.forget(dir);
    this.answers.clear();
    await Promise.all([...this.closing]);
  }

  /** Ends the reader of a repository whose directory is about to be removed or replaced. */
  forget(dir: string): void {
    const reader = this.readers.peek(dir);
    this.readers.delete(dir);
    this.loose.delete(dir);
    this.packed.forget(dir);
    this.retire(dir, reader);
  }

  /** Closes a reader taken out of `readers` (waited for by `close`), and drops its repository's answers. */
  private retire(dir: string, reader: CatFileReader | undefined): void {
    this.answers.delete(dir);
    if (!reader) return;
    const done = reader.close();
    this.closing.add(done);
    void done.then(() => this.closing.delete(done));
  }

  /**
   * One object read through the repository's reader, started on first use. A reader that died is
   * replaced and the read asked once more of the new one; a second death fails with git's message.
   */
  private async read(dir: string, name: string, withContent: boolean): Promise<CatFileObject | null> {
    for (let attempt = 0; ; attempt++) {
      const reader = this.readerFor(dir);
      try {
        return await (withContent ? reader.contents(name) : reader.info(name));
      } catch (err) {
        if (!(err instanceof ReaderGone) || attempt >= 1) throw err;
      } finally {
        // After close a read still answers, from a process of its own that ends with it.
        if (this.stopped) void reader.close();
      }
    }
  }

  /**
   * `compute`'s answer for `ids` (full object ids, so the answer cannot change), kept once it is known
   * for good: an answer `keep` refuses (one that a missing object could explain, which a push may
   * bring) is asked again next time. Each caller gets a copy it may change.
   */
  private settled<T>(
    dir: string,
    what: string,
    ids: (string | null)[],
    compute: () => Promise<T>,
    keep: (answer: T) => boolean = () => true,
  ): Promise<T> {
    if (!ids.every((id) => id === null || FULL_SHA.test(id))) return compute();
    let known = this.answers.get(dir);
    if (!known) {
      known = new LRUCache({ max: MAX_SETTLED });
      this.answers.set(dir, known);
    }
    const key = `${what} ${ids.join(" ")}`;
    let answer = known.get(key) as Promise<T> | undefined;
    if (!answer) {
      const fresh = compute();
      answer = fresh;
      known.set(key, fresh);
      const drop = () => {
        if (known.peek(key) === fresh) known.delete(key);
      };
      fresh.then((a) => keep(a) || drop(), drop);
    }
    return answer.then((a) => structuredClone(a));
  }

  private readerFor(dir: string): CatFileReader {
    const env = { ...process.env, ...GIT_ENV };
    if (this.stopped) return new CatFileReader(dir, env);
    const known = this.readers.get(dir);
    if (known?.alive) return known;
    // a reader that died is replaced as it is (its process is gone); one past MAX_READERS is retired
    const reader = new CatFileReader(dir, env);
    this.readers.set(dir, reader);
    return reader;
  }

  dir(owner: string, name: string): string {
    return join(this.root, owner.toLowerCase(), `${name.toLowerCase()}.git`);
  }

  async init(owner: string, name: string, defaultBranch: string): Promise<void> {
    const dir = this.dir(owner, name);
    mkdirSync(dir, { recursive: true });
    await runGit(dir, ["init", "--bare", "--quiet", `--initial-branch=${defaultBranch}`]);
    await runGit(dir, ["config", "http.receivepack", "true"]);
    await runGit(dir, ["config", "uploadpack.allowAnySHA1InWant", "true"]);
  }

  /**
   * Every ref with the object it points at, ordered by name: read from the repository's files
   * (reffiles.ts), or from `git for-each-ref` where they are not plain.
   */
  async refs(dir: string): Promise<Map<string, string>> {
    const read = await readRefs(dir, this.packed);
    if (read.kind === "read") {
      this.loose.set(dir, read.loose);
      return read.refs;
    }
    const { stdout } = await runGit(dir, ["for-each-ref", "--format=%(objectname) %(refname)"]);
    const out = new Map<string, string>();
    for (const line of stdout.split("\n")) {
      if (!line) continue;
      const sp = line.indexOf(" ");
      out.set(line.slice(sp + 1), line.slice(0, sp));
    }
    return out;
  }

  /**
   * Tidies the repository as `git maintenance` would, when its last listing read PACK_REFS_AT loose refs
   * or more: packs its refs (`git pack-refs --all`), so that a listing reads one file and the few refs
   * written since, and brings its commit-graph up to date (a `--split` layer of the commits since, with
   * the paths each changed). Without the graph every push's connectivity check and every fetch's
   * negotiation and packing parsed the commits the repository's refs reach from their objects: in
   * Porch's iterative test, more with every revision published. The caller holds the repository's lock:
   * no write of the forge's races the packing.
   */
  async tidyIfMany(dir: string): Promise<void> {
    if ((this.loose.get(dir) ?? 0) < PACK_REFS_AT) return;
    this.loose.delete(dir);
    await runGit(dir, ["pack-refs", "--all"]);
    await runGit(dir, [
      "commit-graph",
      "write",
      "--reachable",
      "--split",
      "--changed-paths",
      "--no-progress",
    ]);
  }

  async resolve(dir: string, rev: string): Promise<string | null> {
    // A ref's name can move at any push: only an object id, whose commit never changes, goes to the reader.
    if (FULL_SHA.test(rev)) return (await this.read(dir, `${rev}^{commit}`, false))?.sha ?? null;
    // A name under refs/ is read from the files once, then its object id peeled by the reader.
    const ref = await readRef(dir, rev, this.packed);
    if (ref.kind === "read")
      return ref.sha && ((await this.read(dir, `${ref.sha}^{commit}`, false))?.sha ?? null);
    const { stdout, code } = await runGit(dir, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`], {
      allowFail: true,
    });
    return code === 0 ? stdout.trim() : null;
  }

  /** The type of an object, or null if the repository lacks it. */
  async objectType(dir: string, sha: string): Promise<string | null> {
    if (FULL_SHA.test(sha)) return (await this.read(dir, sha, false))?.type ?? null;
    const { stdout, code } = await runGit(dir, ["cat-file", "-t", sha], { allowFail: true });
    return code === 0 ? stdout.trim() : null;
  }

  async commit(dir: string, sha: string): Promise<GitCommit | null> {
    // `cat-file commit` peels a tag to its commit; so does `^{commit}`.
    if (FULL_SHA.test(sha)) {
      const o = await this.read(dir, `${sha}^{commit}`, true);
      return o ? parseCommit(sha, o.content!.toString("utf8")) : null;
    }
    const { stdout, code } = await runGit(dir, ["cat-file", "commit", sha], { allowFail: true });
    return code === 0 ? parseCommit(sha, stdout) : null;
  }

  /** An annotated tag object's fields, or null. */
  async tag(
    dir: string,
    sha: string,
  ): Promise<{ object: string; type: string; tag: string; tagger: GitPerson; message: string } | null> {
    if (FULL_SHA.test(sha)) {
      const o = await this.read(dir, sha, true);
      return o?.type === "tag" ? parseTag(o.content!.toString("utf8")) : null;
    }
    const { stdout, code } = await runGit(dir, ["cat-file", "tag", sha], { allowFail: true });
    return code === 0 ? parseTag(stdout) : null;
  }

  /** Entries of a tree (at `path` inside a commit or tree), or null when the path is missing. */
  async lsTree(dir: string, treeish: string, path = ""): Promise<TreeEntry[] | null> {
    if (FULL_SHA.test(treeish)) {
      const entries = await this.treeAt(dir, treeish, path);
      if (entries) await Promise.all(entries.map((e) => this.sizeOf(dir, e)));
      return entries;
    }
    const spec = path ? `${treeish}:${path}` : `${treeish}^{tree}`;
    const { stdout, code } = await runGit(dir, ["ls-tree", "-l", "-z", spec], { allowFail: true });
    if (code !== 0) return null;
    return stdout
      .split("\0")
      .filter(Boolean)
      .map((rec) => {
        const tab = rec.indexOf("\t");
        const [mode, type, sha, size] = rec.slice(0, tab).split(/\s+/) as [string, string, string, string];
        const name = rec.slice(tab + 1);
        return {
          mode,
          type: type as TreeEntry["type"],
          sha,
          size: size === "-" ? 0 : Number(size),
          path: path ? `${path}/${name}` : name,
        };
      });
  }

  /** The entry at a path of a commit (type, sha, size), or null. */
  async entryAt(dir: string, commit: string, path: string): Promise<TreeEntry | null> {
    const slash = path.lastIndexOf("/");
    const parent = slash >= 0 ? path.slice(0, slash) : "";
    if (FULL_SHA.test(commit)) {
      // Only the entry asked for needs its size.
      const entries = await this.treeAt(dir, commit, parent);
      const entry = entries?.find((e) => e.path === path);
      if (!entry) return null;
      await this.sizeOf(dir, entry);
      return entry;
    }
    const entries = await this.lsTree(dir, commit, parent);
    return entries?.find((e) => e.path === path) ?? null;
  }

  /**
   * The entries of the tree at `path` in a commit or tree, or null, walked one tree at a time as git
   * resolves `<treeish>:<path>` (an exact name per step; a trailing slash only after a directory; `./`
   * finds nothing), so that no name from a request reaches the reader, where a name git refuses ends it.
   * The last step peels as `ls-tree` does: a submodule's commit, when the repository has it, lists its tree.
   */
  private async treeAt(dir: string, treeish: string, path: string): Promise<TreeEntry[] | null> {
    let sha = treeish;
    let rest = path;
    for (;;) {
      const tree = await this.read(dir, `${sha}^{tree}`, true);
      if (!tree) return null;
      const entries = parseTree(tree.content!, "");
      if (!rest) return path ? entries.map((e) => ({ ...e, path: `${path}/${e.path}` })) : entries;
      const slash = rest.indexOf("/");
      const name = slash < 0 ? rest : rest.slice(0, slash);
      const entry = entries.find((e) => e.path === name);
      if (!entry || (slash >= 0 && entry.type !== "tree")) return null;
      sha = entry.sha;
      rest = slash < 0 ? "" : rest.slice(slash + 1);
    }
  }

  /** A blob entry's size, as `ls-tree -l` gives it (NaN where it prints "BAD": the blob is missing). */
  private async sizeOf(dir: string, entry: TreeEntry): Promise<void> {
    if (entry.type !== "blob") return;
    const o = await this.read(dir, entry.sha, false);
    entry.size = o ? o.size : Number.NaN;
  }

  async blob(dir: string, sha: string): Promise<Buffer> {
    if (FULL_SHA.test(sha)) {
      // `cat-file blob` peels a tag to its blob; so does `^{blob}`.
      const o = await this.read(dir, `${sha}^{blob}`, true);
      if (!o) throw new Error(`git cat-file blob ${sha}: no such blob`);
      return o.content!;
    }
    const ran = await runInHelper({
      file: "git",
      args: ["--git-dir", dir, "cat-file", "blob", sha],
      env: { ...process.env, ...GIT_ENV },
    });
    if (ran.code !== 0) throw new Error(`git cat-file blob ${sha}: ${ran.stderr || "failed"}`);
    return ran.stdout;
  }

  /** A commit's parents read through the reader (null: no such commit). */
  private parentsOf(dir: string): ParentsOf {
    return async (sha) => (await this.commit(dir, sha))?.parents ?? null;
  }

  /**
   * `revs` (full object ids) peeled to their commits, where a question about them may be answered by
   * walking the commits through the reader (history.ts); null where git is to answer.
   */
  private async walkable(dir: string, revs: string[]): Promise<string[] | null> {
    if (!revs.every((r) => FULL_SHA.test(r)) || !(await historyAsStored(dir))) return null;
    const ids: string[] = [];
    for (const rev of revs) {
      const id = await this.resolve(dir, rev);
      if (!id) return null;
      ids.push(id);
    }
    return ids;
  }

  /** Whether `ancestor` is `descendant` or behind it, where one line of history says; null: ask git. */
  private async ancestryByWalk(dir: string, ancestor: string, descendant: string): Promise<boolean | null> {
    const ids = await this.walkable(dir, [ancestor, descendant]);
    const line = ids && (await lineBack(this.parentsOf(dir), ids[1]!, ids[0]!));
    // A root reached first: the walk was the descendant's whole history, and the ancestor not in it.
    return line ? line.reached === "stop" : null;
  }

  async isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
    // Exit 1 says "not an ancestor"; anything else (a missing object) says nothing for good.
    const { code } = await this.settled(
      dir,
      "is-ancestor",
      [ancestor, descendant],
      async () => {
        const walked = await this.ancestryByWalk(dir, ancestor, descendant);
        if (walked !== null) return { stdout: "", code: walked ? 0 : 1 };
        return runGit(dir, ["merge-base", "--is-ancestor", ancestor, descendant], { allowFail: true });
      },
      (r) => r.code === 0 || r.code === 1,
    );
    return code === 0;
  }

  async mergeBase(dir: string, a: string, b: string): Promise<string | null> {
    const { stdout, code } = await this.settled(
      dir,
      "merge-base",
      [a, b],
      async () => {
        // One behind the other on one line of history: the one behind is the merge base.
        const ids = await this.walkable(dir, [a, b]);
        if (ids) {
          const parents = this.parentsOf(dir);
          for (const [behind, ahead] of [ids, [...ids].reverse()] as [string, string][]) {
            if ((await lineBack(parents, ahead, behind))?.reached === "stop")
              return { stdout: behind, code: 0 };
          }
        }
        return runGit(dir, ["merge-base", a, b], { allowFail: true });
      },
      (r) => r.code === 0,
    );
    return code === 0 ? stdout.trim() : null;
  }

  /** Commits reachable from `include` but from none of `exclude`, oldest first. */
  revList(dir: string, include: string, exclude: string[] = []): Promise<string[]> {
    return this.settled(dir, "rev-list", [include, ...exclude], async () => {
      // One line of history from `include` down to its root, or to the one commit excluded.
      if (exclude.length <= 1) {
        const ids = await this.walkable(dir, [include, ...exclude]);
        const line = ids && (await lineBack(this.parentsOf(dir), ids[0]!, ids[1] ?? null));
        if (line && line.reached === (exclude.length ? "stop" : "root")) return line.commits.reverse();
      }
      const args = ["rev-list", "--reverse", "--topo-order", include, ...exclude.map((e) => `^${e}`)];
      return (await runGit(dir, args)).stdout.split("\n").filter(Boolean);
    });
  }

  /** Files changed from `base` to `head` with line counts (`base` null: against the empty tree). */
  diff(dir: string, base: string | null, head: string): Promise<FileChange[]> {
    return this.settled(dir, "diff", [base, head], () => this.diffOf(dir, base, head));
  }

  private async diffOf(dir: string, base: string | null, head: string): Promise<FileChange[]> {
    const from = base ?? (await this.emptyTree(dir));
    // One process for both: the raw records (status, ids, names), then the line counts.
    const { stdout } = await runGit(dir, [
      "diff-tree",
      "-r",
      "-z",
      "-M",
      "--no-commit-id",
      "--raw",
      "--numstat",
      "--abbrev=40",
      from,
      head,
    ]);
    const tokens = stdout.split("\0");
    const raw: { status: string; newSha: string; first: string; second?: string }[] = [];
    let i = 0;
    // Each raw record is its metadata and one name (two for a rename or copy); the first token at a
    // record's start that is no metadata begins the counts, whose names may start with ":" too.
    for (; i < tokens.length && tokens[i]!.startsWith(":"); ) {
      const [, , , newSha, status] = tokens[i]!.slice(1).split(" ") as [
        string,
        string,
        string,
        string,
        string,
      ];
      const first = tokens[i + 1] ?? "";
      const pair = status[0] === "R" || status[0] === "C";
      raw.push({ status, newSha, first, ...(pair ? { second: tokens[i + 2] ?? "" } : {}) });
      i += pair ? 3 : 2;
    }
    const counts = parseNumstat(tokens.slice(i));
    return raw.map(({ status, newSha, first, second }) => {
      const kind = status[0];
      const filename = second ?? first;
      return {
        status: kind === "A" ? "added" : kind === "D" ? "removed" : kind === "R" ? "renamed" : "modified",
        filename,
        ...(second ? { previousFilename: first } : {}),
        sha: newSha,
        ...(counts.get(filename) ?? { additions: 0, deletions: 0 }),
      };
    });
  }

  /** The empty tree's id, written once per repository (the answer is kept, as a merge base's is). */
  emptyTree(dir: string): Promise<string> {
    return this.settled(dir, "empty-tree", [], async () => {
      const { stdout } = await runGit(dir, ["hash-object", "-t", "tree", "-w", "--stdin"], { input: "" });
      return stdout.trim();
    });
  }

  /** A three-way merge without a worktree: the merged tree, or the conflicting paths. */
  async mergeTree(
    dir: string,
    ours: string,
    theirs: string,
  ): Promise<{ tree: string } | { conflicts: string[] }> {
    // A clean merge (0) and a conflict (1) are for good; git failing is thrown below and asked again.
    const { stdout, code } = await this.settled(
      dir,
      "merge-tree",
      [ours, theirs],
      () => runGit(dir, ["merge-tree", "--write-tree", "--name-only", ours, theirs], { allowFail: true }),
      (r) => r.code === 0 || r.code === 1,
    );
    const lines = stdout.split("\n");
    if (code === 0) return { tree: lines[0]!.trim() };
    if (code === 1) {
      const end = lines.indexOf("", 1);
      return { conflicts: lines.slice(1, end < 0 ? undefined : end).filter(Boolean) };
    }
    throw new Error(`git merge-tree failed: ${stdout}`);
  }

  async commitTree(
    dir: string,
    tree: string,
    parents: string[],
    message: string,
    author: { name: string; email: string },
    committer: { name: string; email: string } = author,
    /** The commit's date: the forge's clock for commits the forge makes (merges); git's own when absent. */
    date?: Date,
  ): Promise<string> {
    const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p])];
    const when = date ? `${Math.floor(date.getTime() / 1000)} +0000` : undefined;
    const { stdout } = await runGit(dir, args, {
      input: message,
      env: {
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        GIT_COMMITTER_NAME: committer.name,
        GIT_COMMITTER_EMAIL: committer.email,
        ...(when ? { GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when } : {}),
      },
    });
    return stdout.trim();
  }

  /** Moves a ref atomically: fails unless it still points at `old` (ZERO_SHA: must not exist). */
  async updateRef(dir: string, ref: string, next: string, old: string): Promise<boolean> {
    const { code } = await runGit(dir, ["update-ref", ref, next, old], { allowFail: true });
    return code === 0;
  }

  async deleteRef(dir: string, ref: string, old: string): Promise<boolean> {
    const { code } = await runGit(dir, ["update-ref", "-d", ref, old], { allowFail: true });
    return code === 0;
  }

  async mktag(dir: string, content: string): Promise<string> {
    const { stdout } = await runGit(dir, ["mktag"], { input: content });
    return stdout.trim();
  }
}

function parseNumstat(tokens: string[]): Map<string, { additions: number; deletions: number }> {
  const counts = new Map<string, { additions: number; deletions: number }>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t) continue;
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(t.replace(/^\n/, ""));
    if (!m) continue;
    let name = m[3]!;
    if (name === "") {
      i += 2;
      name = tokens[i] ?? "";
    }
    counts.set(name, {
      additions: m[1] === "-" ? 0 : Number(m[1]),
      deletions: m[2] === "-" ? 0 : Number(m[2]),
    });
  }
  return counts;
}

/**
 * Writes a commit whose tree is `parent`'s tree with `files` applied (content, or null to delete),
 * using a throwaway index; returns the new commit's sha. The caller moves the ref. The index is changed
 * by one `update-index --index-info` (mode 0 removes a path), which needs no work tree, as the forge's
 * bare repositories have none (`--force-remove` does).
 */
export async function commitFiles(
  git: GitStore,
  dir: string,
  opts: {
    parent: string | null;
    files: Record<string, string | Buffer | null>;
    message: string;
    author: { name: string; email: string };
    tmpIndex: string;
  },
): Promise<string> {
  const env = { GIT_INDEX_FILE: opts.tmpIndex };
  if (opts.parent) await runGit(dir, ["read-tree", opts.parent], { env });
  else await runGit(dir, ["read-tree", "--empty"], { env });
  const entries: string[] = [];
  for (const [path, content] of Object.entries(opts.files)) {
    if (content === null) {
      entries.push(`0 ${ZERO_SHA}\t${path}\0`);
      continue;
    }
    const { stdout } = await runGit(dir, ["hash-object", "-w", "--stdin"], { input: content });
    entries.push(`100644 ${stdout.trim()}\t${path}\0`);
  }
  if (entries.length > 0)
    await runGit(dir, ["update-index", "-z", "--index-info"], { env, input: entries.join("") });
  const { stdout: tree } = await runGit(dir, ["write-tree"], { env });
  rmSync(opts.tmpIndex, { force: true });
  return git.commitTree(dir, tree.trim(), opts.parent ? [opts.parent] : [], opts.message, opts.author);
}
