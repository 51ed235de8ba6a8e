import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blobId, PACK_FROM } from "../../src/github/git-objects.js";
import { CacheClone } from "../../src/github/git-repo/clone.js";
import { tidy } from "../../src/github/git-repo/remote.js";
import { GitRepo } from "../../src/github/git-repo.js";
import { GitObjectCache } from "../../src/github/object-cache.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { gitCalls } from "./git-calls.js";

const author = { name: "porchlight[bot]", email: "bot@example.com" };

describe("GitRepo", () => {
  let dir: string;
  let remote: string;
  let repo: GitRepo;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "porchlight-gitrepo-"));
    remote = join(dir, "remote.git");
    execFileSync("git", ["init", "--bare", "--quiet", "-b", "main", remote]);
    repo = new GitRepo(`file://${remote}`, join(dir, "cache"), async () => ({}));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Commits `files` as the whole tree of `branch` on `parent` (null: a first commit), pushed to the remote. */
  const commit = (files: Record<string, string>, parent: string | null = null, branch = "main") =>
    repo.commitTree({ branch, parent, dir: "", tree: treeFromText(files), message: "m", author });
  /** The same, for a commit sure to be made: its sha. */
  const commitSha = async (files: Record<string, string>, parent: string | null = null, branch = "main") =>
    ((await commit(files, parent, branch)) as { sha: string }).sha;
  /** The bare repository a GitRepo keeps of the remote under its cache folder. */
  const cloneIn = (cache: string) => join(dir, cache, `${remote.replace(/[^A-Za-z0-9._-]+/g, "_")}.git`);

  it("a commit of many files writes one pack with deltas: every file back from the remote, the store sound", async () => {
    // PACK_FROM files and more: one pack (git fast-import), not a loose object each. Sizes that need one to three bytes
    // of a pack entry's head (15, 2,047 and more), an empty file, the same bytes twice.
    const files: Record<string, string> = {
      "empty.yaml": "",
      "twin-a.yaml": "same\n",
      "twin-b.yaml": "same\n",
    };
    for (let i = 0; i < PACK_FROM + 20; i++) files[`app/f-${i}.yaml`] = `n: ${i}\n${"x".repeat(i * 97)}\n`;
    files["big.yaml"] = `${"y".repeat(300_000)}\n`;
    const sha = await commitSha(files);
    const cache = cloneIn("cache");
    const packed = () => {
      const idx = readdirSync(join(cache, "objects", "pack")).filter((f) => f.endsWith(".idx"));
      const listed = idx.map((f) =>
        execFileSync("git", ["verify-pack", "-v", join(cache, "objects", "pack", f)], { encoding: "utf8" }),
      );
      return { packs: idx.length, ids: new Set(listed.join("\n").match(/^[0-9a-f]{40}(?= blob)/gm)) };
    };
    const first = packed();
    expect(first.packs).toBe(1);
    const ids = new Set(Object.values(files).map((t) => blobId(Buffer.from(t))));
    expect(first.ids).toEqual(ids);
    execFileSync("git", ["--git-dir", cache, "fsck", "--full", "--no-dangling"]);
    // The remote got every file as it was committed.
    const check = join(dir, "check");
    execFileSync("git", ["clone", "--quiet", "--branch", "main", remote, check]);
    expect(execFileSync("git", ["-C", check, "rev-parse", "HEAD"], { encoding: "utf8" }).trim()).toBe(sha);
    for (const [path, text] of Object.entries(files))
      expect(readFileSync(join(check, path), "utf8")).toBe(text);
    execFileSync("git", ["--git-dir", remote, "fsck", "--full", "--no-dangling"]);
    // git wrote the pack: its blobs stored as deltas where smaller, and the push sent them so.
    const remotePacks = readdirSync(join(remote, "objects", "pack")).filter((f) => f.endsWith(".idx"));
    const deltas = remotePacks
      .map((f) =>
        execFileSync("git", ["verify-pack", "-v", join(remote, "objects", "pack", f)], { encoding: "utf8" }),
      )
      .join("\n")
      .match(/^[0-9a-f]{40} blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/gm);
    expect(deltas?.length ?? 0).toBeGreaterThan(PACK_FROM / 2);
    // A few files after it: a loose object, as git's own receiving side unpacks fewer than 100.
    await commitSha({ ...files, "app/f-0.yaml": "edited\n" }, sha);
    expect(packed().packs).toBe(1);
    const edited = blobId(Buffer.from("edited\n"));
    expect(execFileSync("git", ["--git-dir", cache, "cat-file", "-p", edited], { encoding: "utf8" })).toBe(
      "edited\n",
    );
    expect(readdirSync(join(cache, "objects", edited.slice(0, 2)))).toContain(edited.slice(2));
  });

  it("commits a tree under a directory, reads it back, and lists the refs", async () => {
    const first = await repo.commitTree({
      branch: "main",
      parent: null,
      dir: "",
      tree: treeFromText({ "README.md": "hi\n", "app/Kptfile": "a\n", "app/cm.yaml": "b\n" }),
      message: "init",
      author,
    });
    expect(first.ok).toBe(true);
    const sha1 = (first as { sha: string }).sha;
    const second = await repo.commitTree({
      branch: "drafts/app/v2",
      parent: sha1,
      dir: "app",
      tree: treeFromText({ Kptfile: "a2\n", "new.yaml": "c\n" }),
      message: "edit app",
      author,
    });
    expect(second.ok).toBe(true);
    const sha2 = (second as { sha: string }).sha;
    expect(treeToText(await repo.readTree(sha2))).toEqual({
      "README.md": "hi\n",
      "app/Kptfile": "a2\n",
      "app/new.yaml": "c\n",
    });
    expect(treeToText(await repo.readTree(sha2, "app"))).toEqual({ Kptfile: "a2\n", "new.yaml": "c\n" });
    expect(await repo.changedPaths(sha1, sha2)).toEqual(["app/Kptfile", "app/cm.yaml", "app/new.yaml"]);
    const refs = await repo.lsRemote();
    expect(refs).toEqual(
      expect.arrayContaining([
        { ref: "refs/heads/main", sha: sha1 },
        { ref: "refs/heads/drafts/app/v2", sha: sha2 },
      ]),
    );
  });

  it("refuses to overwrite a branch that moved, and makes no empty commit", async () => {
    const sha = await commitSha({ a: "1\n" });
    await commit({ a: "2\n" }, sha);
    const stale = await commit({ a: "3\n" }, sha);
    expect(stale).toEqual({ ok: false, reason: "non-fast-forward" });
    const same = await commit({ a: "1\n" }, sha);
    expect(same).toEqual({ ok: false, reason: "unchanged" });
  });

  it("fetches a branch by name and a tag by name", async () => {
    const sha = await commitSha({ a: "1\n" });
    execFileSync("git", ["--git-dir", remote, "tag", "app/v1", sha]);
    const other = new GitRepo(`file://${remote}`, join(dir, "cache2"), async () => ({}));
    expect(await other.fetch("main")).toBe(sha);
    expect(await other.fetch("app/v1")).toBe(sha);
    await expect(other.fetch("nope")).rejects.toThrow("couldn't find remote ref nope");
  });

  it("fetches several refs at once, each answering with its own commit", async () => {
    const shas: string[] = [];
    for (const [i, branch] of ["main", "drafts/a/w1", "drafts/b/w1", "drafts/c/w1"].entries()) {
      shas.push(await commitSha({ f: `${i}\n` }, null, branch));
    }
    const other = new GitRepo(`file://${remote}`, join(dir, "cache3"), async () => ({}));
    const twin = new GitRepo(`file://${remote}`, join(dir, "cache3"), async () => ({}));
    await other.lsRemote(); // the cache exists: two jobs share it from then on
    const fetched = await Promise.all([
      other.fetch("main"),
      twin.fetch("refs/heads/drafts/a/w1"),
      other.fetch("refs/heads/drafts/b/w1"),
      twin.fetch("drafts/c/w1"),
      other.fetch("refs/heads/main"),
    ]);
    expect(fetched).toEqual([...shas, shas[0]]);
  });

  it("opens one cache for the first time from several jobs at once (one git init, no lock clash)", async () => {
    const first = await commitSha({ f: "1\n" });
    const cache = join(dir, "cache-fresh");
    const jobs = Array.from({ length: 8 }, () => new GitRepo(`file://${remote}`, cache, async () => ({})));
    const heads = await Promise.all(jobs.map((j) => j.fetch("main")));
    expect(heads).toEqual(jobs.map(() => first));
  });

  it("asks git once which of many commits a clone lacks, and nothing of a clone it just made", async () => {
    const shas: string[] = [];
    for (let i = 0; i < 12; i++) shas.push(await commitSha({ f: `${i}\n` }, shas.at(-1) ?? null));
    const calls = await gitCalls(dir, async () => {
      const fresh = new GitRepo(`file://${remote}`, join(dir, "fresh"), async () => ({}));
      expect(await fresh.fetch(shas[5] as string)).toBe(shas[5]);
      const messages = await fresh.commitMessages(shas);
      expect([...messages]).toEqual(shas.map((sha) => [sha, "m"]));
    });
    // the fresh clone fetched at once; then one question for all twelve (the messages of the six it has
    // with it), one fetch for those after the fifth, and one question for their messages
    expect(calls.filter((c) => c.startsWith("cat-file"))).toEqual(["cat-file --batch", "cat-file --batch"]);
    expect(calls.filter((c) => / ?fetch /.test(c))).toHaveLength(2);
    expect(calls.filter((c) => c.startsWith("log"))).toEqual([]);
  });

  it("reads commit messages as git log's %B gives them: several lines, none, another encoding", async () => {
    const work = join(dir, "work");
    const g = (...args: string[]) =>
      execFileSync("git", ["-C", work, "-c", "user.name=A", "-c", "user.email=a@example.com", ...args], {
        encoding: "utf8",
      });
    execFileSync("git", ["clone", "-q", remote, work]);
    g("commit", "-q", "--allow-empty", "-m", "subject", "-m", "body line\n\nkpt: x\n");
    g("commit", "-q", "--allow-empty", "--allow-empty-message", "--cleanup=verbatim", "-m", "");
    g("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "--allow-empty", "-m", "caf\u00e9");
    g("push", "-q", "origin", "HEAD:main");
    const shas = g("rev-list", "HEAD", "--max-count=3").trim().split("\n");
    const expected = new Map(
      shas.map((sha) => [sha, g("log", "--no-walk", "--format=%B%x1e", sha).split("\x1e")[0] as string]),
    );
    // the message's UTF-8 bytes said to be ISO-8859-1: git log re-encodes them, as the clone must too
    expect(expected.get(shas[0] as string)).toBe("caf\u00c3\u00a9\n");
    const fresh = new GitRepo(`file://${remote}`, join(dir, "fresh"), async () => ({}));
    await fresh.fetch(shas[0] as string);
    expect(await fresh.commitMessages(shas)).toEqual(expected);
  });

  it("reads a file of a commit it holds by git once: another opening sharing the cache asks git nothing", async () => {
    const sha = await commitSha({ "app/Kptfile": "kind: Kptfile\n", "app/link": "x\n" });
    const objects = new GitObjectCache();
    const opening = () => new GitRepo(`file://${remote}`, join(dir, "api"), async () => ({}), objects);
    await opening().fetch(sha);
    const first = await gitCalls(dir, async () => {
      const repo = opening();
      expect(await repo.heldFile(sha, "app/Kptfile")).toBe("kind: Kptfile\n");
      expect(await repo.heldFile(sha, "app/missing.yaml")).toBeUndefined();
    });
    // whether the clone holds the commit whole (held for the cache's hour), each path, the one blob
    expect(first.map((c) => c.split(" ")[0])).toEqual(["ls-tree", "cat-file", "ls-tree"]);
    const again = await gitCalls(dir, async () => {
      const repo = opening();
      expect(await repo.heldFile(sha, "app/Kptfile")).toBe("kind: Kptfile\n");
      expect(await repo.heldFile(sha, "app/missing.yaml")).toBeUndefined();
    });
    expect(again).toEqual([]);
    // a commit the clone lacks is not answered from what the cache knows of others
    expect(await opening().heldFile("0".repeat(40), "app/Kptfile")).toBeNull();
  });

  it("reads from git only the blobs its cache lacks, and writes only the files a commit changed", async () => {
    const first = await commitSha({ "app/Kptfile": "k\n", "app/a.yaml": "a\n", "app/b.yaml": "b\n" });
    const blobs = new GitObjectCache();
    const job = () => new GitRepo(`file://${remote}`, join(dir, "bot"), async () => ({}), blobs);
    const cacheDir = cloneIn("bot");

    const read = await job().readFiles(await job().fetch("main"), "app");
    expect(treeToText(read.tree)).toEqual({ Kptfile: "k\n", "a.yaml": "a\n", "b.yaml": "b\n" });
    expect(read.blobs.get("a.yaml")).toBe(blobId(Buffer.from("a\n")));
    expect(read.blobs.get("a.yaml")).toBe(git(remote, "rev-parse", `${first}:app/a.yaml`));
    expect([blobs.hits, blobs.misses]).toEqual([0, 3]);

    // A push that changed one file: that blob alone is read from git.
    const second = await commitSha(
      { "app/Kptfile": "k\n", "app/a.yaml": "a2\n", "app/b.yaml": "b\n" },
      first,
    );
    const bot = job();
    const edited = await bot.readFiles(await bot.fetch(second), "app");
    expect(treeToText(edited.tree)).toEqual({ Kptfile: "k\n", "a.yaml": "a2\n", "b.yaml": "b\n" });
    expect([blobs.hits, blobs.misses]).toEqual([2, 4]);

    // The bot's commit writes the one file it changed, and what it wrote is never read back; the files
    // it kept as read are named by the ids read (b.yaml's is not: its bytes changed).
    const blobsBefore = blobsIn(cacheDir);
    const kept = new Map([...edited.blobs].filter(([path]) => path !== "b.yaml"));
    const pushed = await bot.commitTree({
      branch: "main",
      parent: second,
      dir: "app",
      tree: treeFromText({ Kptfile: "k\n", "a.yaml": "a2\n", "b.yaml": "b2\n" }),
      blobIds: kept,
      message: "render",
      author,
    });
    expect(pushed.ok).toBe(true);
    expect(blobsIn(cacheDir).filter((b) => !blobsBefore.includes(b))).toEqual([blobId(Buffer.from("b2\n"))]);
    const after = await job().readFiles((pushed as { sha: string }).sha, "app");
    expect(treeToText(after.tree)).toEqual({ Kptfile: "k\n", "a.yaml": "a2\n", "b.yaml": "b2\n" });
    expect([blobs.hits, blobs.misses]).toEqual([5, 4]);
    expect(git(remote, "show", `${(pushed as { sha: string }).sha}:app/b.yaml`)).toBe("b2");
  });

  it("refuses a commit whose blob the clone lacks, naming it, and keeps no empty file for it", async () => {
    const first = await commitSha({ "app/Kptfile": "k\n" });
    const blobs = new GitObjectCache();
    const bot = new GitRepo(`file://${remote}`, join(dir, "bot"), async () => ({}), blobs);
    await bot.fetch(first);
    // a commit in the clone whose tree names a blob it does not hold
    const clone = cloneIn("bot");
    const lost = blobId(Buffer.from("never written\n"));
    const tree = execFileSync("git", ["mktree", "--missing"], {
      env: { ...process.env, GIT_DIR: clone },
      input: `100644 blob ${lost}\tcm.yaml\n`,
    })
      .toString("utf8")
      .trim();
    const broken = git(clone, "commit-tree", tree, "-m", "lost");
    await expect(bot.readFiles(broken)).rejects.toThrow(
      `cm.yaml (blob ${lost}) of commit ${broken} is missing`,
    );
    expect(blobs.get(clone, lost)).toBeUndefined();
  });

  it("fetches again a commit the clone holds without all its objects (a fetch unpacking it, or failed half-way), and reads it whole", async () => {
    const first = await commitSha({ "app/Kptfile": "k\n" });
    const second = await commitSha({ "app/Kptfile": "k\n", "app/cm.yaml": "c: 1\n" }, first);
    const reader = () => new GitRepo(`file://${remote}`, join(dir, "reader"), async () => ({}));
    await reader().fetch(first);
    // the commit and its trees written into the clone, its new blob not yet: what `git unpack-objects`
    // (a small pack, the commit first) has written part-way through, or left behind when it failed
    const clone = cloneIn("reader");
    for (const id of [
      second,
      git(remote, "rev-parse", `${second}^{tree}`),
      git(remote, "rev-parse", `${second}:app`),
    ])
      execFileSync("git", ["hash-object", "-w", "--stdin", "-t", git(remote, "cat-file", "-t", id)], {
        env: { ...process.env, GIT_DIR: clone },
        input: execFileSync("git", ["cat-file", git(remote, "cat-file", "-t", id), id], {
          env: { ...process.env, GIT_DIR: remote },
        }),
      });
    expect(() => git(clone, "cat-file", "-e", `${second}^{commit}`)).not.toThrow();
    // another job (nothing held in memory) asks for the commit: fetched again, not taken as whole
    const job = reader();
    expect(await job.fetch(second)).toBe(second);
    expect(treeToText((await job.readFiles(second, "app")).tree)).toEqual({
      Kptfile: "k\n",
      "cm.yaml": "c: 1\n",
    });
  });

  it("a job asks git nothing an earlier job asked of the same commits: commits held, trees, changed paths", async () => {
    const first = await commitSha({ "app/Kptfile": "k\n", "app/a.yaml": "a\n", "README.md": "r\n" });
    const second = await commitSha({ "app/Kptfile": "k\n", "app/a.yaml": "a2\n", "README.md": "r\n" }, first);
    const cache = new GitObjectCache();
    const job = () => new GitRepo(`file://${remote}`, join(dir, "bot"), async () => ({}), cache);
    const one = job();
    expect([await one.fetch(first), await one.fetch(second)]).toEqual([first, second]);
    expect(await one.changedPaths(first, second)).toEqual(["app/a.yaml"]);
    expect((await one.listFiles(second)).map((f) => f.path)).toEqual([
      "README.md",
      "app/Kptfile",
      "app/a.yaml",
    ]);

    // The clone taken away: were the next job to run git, it would fail.
    await rm(cloneIn("bot"), { recursive: true });
    const two = job();
    expect(await two.fetch(second)).toBe(second);
    expect(two.changedPathsKnown(first, second)).toEqual(["app/a.yaml"]);
    // a directory's files cut from the whole tree listed before
    expect(await two.listFiles(second, "app")).toEqual([
      { path: "Kptfile", size: 2 },
      { path: "a.yaml", size: 3 },
    ]);
    // not asked before: nothing known, and a branch name is never answered from the cache
    expect(two.changedPathsKnown(second, first)).toBeUndefined();
    expect(two.changedPathsKnown("main", second)).toBeUndefined();
  });

  it("fetches one commit without its history when shallow, and the whole history when every branch is asked for", async () => {
    const commits: string[] = [];
    for (const n of [1, 2, 3]) {
      commits.push(await commitSha({ f: `${n}\n` }, commits.at(-1) ?? null));
    }
    const shallow = new GitRepo(`file://${remote}`, join(dir, "shallow"), async () => ({}), undefined, true);
    const cacheDir = cloneIn("shallow");
    expect(await shallow.fetch("main")).toBe(commits[2]);
    expect(treeToText(await shallow.readTree(commits[2]!))).toEqual({ f: "3\n" });
    expect(git(cacheDir, "rev-list", "--count", commits[2]!)).toBe("1");
    // an abbreviated commit is looked for among every branch's history
    await shallow.fetchAll();
    expect(await shallow.resolveCommit(commits[0]!.slice(0, 10))).toBe(commits[0]);
    expect(git(cacheDir, "rev-list", "--count", commits[2]!)).toBe("3");
  });

  it("fetches a branch again by what it lacks only, also after the bot's own push to it", async () => {
    const files = (edit: string) =>
      Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`app/f${i}.yaml`, `n: ${i}${edit}\n`]));
    const first = await commitSha(files(""));
    const bot = new GitRepo(`file://${remote}`, join(dir, "bot"), async () => ({}));
    const cacheDir = cloneIn("bot");
    expect(await bot.fetch("main")).toBe(first);
    /** Objects the clone received: loose ones and every pack's count (a pack brought again counts again). */
    const received = () => {
      const n = Object.fromEntries(
        git(cacheDir, "count-objects", "-v")
          .split("\n")
          .map((l) => l.split(": ")),
      );
      return Number(n.count) + Number(n["in-pack"]);
    };

    // One file edited: its blob, two trees and the commit come, not the 150 files again.
    const edited = { ...files(""), "app/f0.yaml": "n: edited\n" };
    const second = await commitSha(edited, first);
    let before = received();
    expect(await bot.fetch("main")).toBe(second);
    expect(received() - before).toBeLessThanOrEqual(4);

    // The bot's render commit rewrites every file; the next push brings back none of what the bot wrote.
    const rendered = await bot.commitTree({
      branch: "main",
      parent: second,
      dir: "",
      tree: treeFromText({ ...files(" # rendered"), "app/f0.yaml": "n: edited # rendered\n" }),
      message: "render",
      author,
    });
    expect(rendered.ok).toBe(true);
    const userClone = new GitRepo(`file://${remote}`, join(dir, "user2"), async () => ({}));
    const renderedSha = await userClone.fetch("main");
    const third = await userClone.commitTree({
      branch: "main",
      parent: renderedSha,
      dir: "",
      tree: treeFromText({ ...files(" # rendered"), "app/f0.yaml": "n: again\n" }),
      message: "m",
      author,
    });
    before = received();
    expect(await bot.fetch("main")).toBe((third as { sha: string }).sha);
    expect(received() - before).toBeLessThanOrEqual(4);
  });

  it("fetches a commit by its id by what it lacks only: the server packs the next one by id, not the history since the branches fetched by name", async () => {
    const files = (edit: string) =>
      Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`app/f${i}.yaml`, `n: ${i}${edit}\n`]));
    let head = await commitSha(files(""));
    const bot = new GitRepo(`file://${remote}`, join(dir, "bot"), async () => ({}));
    expect(await bot.fetch("main")).toBe(head);
    // five commits on main, each a file changed, fetched by the last one's id (a merge to tag, say)
    for (let i = 1; i <= 5; i++)
      head = await commitSha({ ...files(""), [`app/f${i}.yaml`]: `n: v${i}\n` }, head);
    expect(await bot.fetch(head)).toBe(head);
    // then one more by its id, what the server packs for it read from git's own trace (trace2, which git
    // reads from the global configuration: a HOME of the test's own for this fetch)
    const next = await commitSha(
      { ...files(""), "app/f5.yaml": "n: v5\n", "app/f9.yaml": "n: next\n" },
      head,
    );
    const home = join(dir, "home");
    const traces = join(dir, "traces");
    mkdirSync(traces, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, ".gitconfig"), `[trace2]\n\tperfTarget = ${traces}\n`, { flag: "w" });
    const was = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(await bot.fetch(next)).toBe(next);
    } finally {
      process.env.HOME = was;
    }
    const packed = readdirSync(traces)
      .map((f) => readFileSync(join(traces, f), "utf8"))
      .flatMap((t) => [...t.matchAll(/write_pack_file\/wrote:(\d+)/g)].map((m) => Number(m[1])));
    // its blob, two trees and the commit
    expect(packed).toEqual([4]);
  });

  it("tidied, a clone keeps a commit-graph with the paths each commit changed, and reads history the same through it", async () => {
    const base = { "app/Kptfile": "a\n", "web/Kptfile": "w\n", "README.md": "r\n" };
    const a = await commitSha(base);
    const b = await commitSha({ ...base, "app/Kptfile": "a2\n" }, a);
    const c = await commitSha({ ...base, "app/Kptfile": "a2\n", "web/Kptfile": "w2\n" }, b);
    const draft = await commitSha(
      { ...base, "app/Kptfile": "a3\n", "web/Kptfile": "w2\n" },
      c,
      "drafts/app/v3",
    );
    const bot = new GitRepo(`file://${remote}`, join(dir, "bot"), async () => ({}));
    await bot.fetch(draft);
    const read = async (head: string) => ({
      history: (await bot.history(head, 10)).map((h) => h.sha),
      last: Object.fromEntries(await bot.lastChanges(head, ["app", "web", "absent"])),
    });
    const before = await read(draft);
    expect(before).toEqual({ history: [draft, c, b, a], last: { app: draft, web: c } });

    const gitDir = cloneIn("bot");
    await tidy(new CacheClone(`file://${remote}`, join(dir, "bot"), async () => ({}), undefined, false));
    expect(graphLayers(gitDir)).toEqual([{ bloom: true }]);
    git(gitDir, "commit-graph", "verify");
    expect(await read(draft)).toEqual(before);

    // a commit made after the graph was written: read from its object, the ones before it from the graph
    const d = await commitSha({ ...base, "app/Kptfile": "a2\n", "web/Kptfile": "w3\n" }, c);
    await bot.fetch(d);
    expect(await read(d)).toEqual({ history: [d, c, b, a], last: { app: b, web: d } });
    // tidied again: the new commit written too, with its changed paths
    await tidy(new CacheClone(`file://${remote}`, join(dir, "bot"), async () => ({}), undefined, false));
    expect(graphLayers(gitDir).every((l) => l.bloom)).toBe(true);
    git(gitDir, "commit-graph", "verify");
    expect(git(gitDir, "commit-graph", "verify", "--shallow")).toBe("");
    expect(await read(d)).toEqual({ history: [d, c, b, a], last: { app: b, web: d } });
  });
});

function git(gitDir: string, ...args: string[]): string {
  return execFileSync("git", args, { env: { ...process.env, GIT_DIR: gitDir } })
    .toString("utf8")
    .trim();
}

/**
 * The layers of a clone's split commit-graph (the chain's files, oldest first), each with whether it holds
 * the paths its commits changed (the Bloom filter chunk, `BDAT`).
 */
function graphLayers(gitDir: string): { bloom: boolean }[] {
  const graphs = join(gitDir, "objects/info/commit-graphs");
  return readFileSync(join(graphs, "commit-graph-chain"), "utf8")
    .trim()
    .split("\n")
    .map((id) => ({ bloom: readFileSync(join(graphs, `graph-${id}.graph`)).includes("BDAT") }));
}

/** Every blob a repository holds, loose or packed. */
function blobsIn(gitDir: string): string[] {
  return git(gitDir, "cat-file", "--batch-all-objects", "--batch-check")
    .split("\n")
    .filter((l) => l.split(" ")[1] === "blob")
    .map((l) => l.split(" ")[0]!);
}
