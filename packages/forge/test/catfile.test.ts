import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CatFileReader } from "../src/catfile.js";
import { commitFiles, GitStore, runGit } from "../src/git.js";
import { startForge } from "../src/index.js";
import { git } from "./helpers.js";

/** This process's `git cat-file --batch-command` children, by pid (Linux: read from /proc). */
function readerPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === process.pid && cmd.includes("cat-file\0--batch-command")) out.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return out;
}

const author = { name: "Test User", email: "test@example.com" };
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" };

describe("the forge's long-lived object reader", () => {
  const tmp = mkdtempSync(join(tmpdir(), "catfile-"));
  const store = new GitStore(join(tmp, "repos"));
  const dir = store.dir("acme", "blueprints");
  let first: string;

  beforeAll(async () => {
    await store.init("acme", "blueprints", "main");
    first = await commitFiles(store, dir, {
      parent: null,
      files: { "README.md": "# blueprints\n" },
      message: "Initial commit\n",
      author,
      tmpIndex: join(dir, "forge-index"),
    });
    await store.updateRef(dir, "refs/heads/main", first, "0".repeat(40));
  });

  afterAll(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("finds objects pushed after it started, loose and packed", async () => {
    const reader = new CatFileReader(dir, env);
    try {
      expect((await reader.info(first))?.type).toBe("commit");
      const work = join(tmp, "work");
      await git(tmp, "clone", "-q", dir, work);
      // A small push leaves loose objects; one of more than 100 objects (receive-pack's unpackLimit) a pack.
      writeFileSync(join(work, "small.txt"), "small\n");
      await git(work, "add", "-A");
      await git(work, "commit", "-qm", "small");
      await git(work, "push", "-q", "origin", "main");
      const small = await git(work, "rev-parse", "HEAD");
      const packsBefore = readdirSync(join(dir, "objects", "pack")).length;
      mkdirSync(join(work, "many"));
      for (let i = 0; i < 150; i++) writeFileSync(join(work, "many", `f${i}.txt`), `file ${i}\n`);
      await git(work, "add", "-A");
      await git(work, "commit", "-qm", "many");
      await git(work, "push", "-q", "origin", "main");
      const many = await git(work, "rev-parse", "HEAD");
      expect(readdirSync(join(dir, "objects", "pack")).length).toBeGreaterThan(packsBefore);

      expect((await reader.contents(small))?.content?.toString()).toContain("\n\nsmall\n");
      expect((await reader.contents(`${many}:many/f149.txt`))?.content?.toString()).toBe("file 149\n");
      expect(reader.alive).toBe(true);
    } finally {
      await reader.close();
    }
  });

  it("answers a missing object with null, and the store as the process-per-read path does", async () => {
    const absent = "1234567890123456789012345678901234567890";
    const reader = new CatFileReader(dir, env);
    try {
      expect(await reader.info(absent)).toBeNull();
      expect(await reader.contents(`${first}:no/such/path`)).toBeNull();
      expect((await reader.info(first))?.type).toBe("commit");
    } finally {
      await reader.close();
    }
    expect(await store.commit(dir, absent)).toBeNull();
    expect(await store.tag(dir, absent)).toBeNull();
    expect(await store.objectType(dir, absent)).toBeNull();
    expect(await store.resolve(dir, absent)).toBeNull();
    expect(await store.lsTree(dir, absent)).toBeNull();
    expect(await store.entryAt(dir, absent, "README.md")).toBeNull();
    await expect(store.blob(dir, absent)).rejects.toThrow();
  });

  it("reads trees, commits, tags and blobs as the process-per-read path does", async () => {
    // Git accepts an object id in capitals; the store sends only lowercase ids to the reader, so the
    // capitals take the path that starts a git process for each read.
    const blob = (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: "x\0y\n" })).stdout.trim();
    const link = (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: "README.md" })).stdout.trim();
    const absentBlob = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
    const inner = (
      await runGit(dir, ["mktree"], { input: `100644 blob ${blob}\tdeep file.txt\n` })
    ).stdout.trim();
    // mktree writes modes as given: a tree's `40000`, a group-writable `100664`, a submodule's gitlink.
    const listing = [
      `100644 blob ${blob}\tplain`,
      `100755 blob ${blob}\trun.sh`,
      `100664 blob ${blob}\tgroup-writable`,
      `120000 blob ${link}\tlink`,
      `160000 commit ${first}\tsubmodule`,
      `040000 tree ${inner}\tdir`,
      `040000 tree ${inner}\t sp ace `,
      `040000 tree ${inner}\tünïcode`,
    ].join("\n");
    const tree = (await runGit(dir, ["mktree"], { input: `${listing}\n` })).stdout.trim();
    const missingTree = (
      await runGit(dir, ["mktree", "--missing"], { input: `100644 blob ${absentBlob}\tgone\n` })
    ).stdout.trim();
    const commit = await store.commitTree(dir, tree, [first], "odd modes\n\nbody\n", author);
    const tagged = await store.mktag(
      dir,
      `object ${commit}\ntype commit\ntag v1\ntagger Test User <test@example.com> 1700000000 +0000\n\nv1\n`,
    );
    const blobTag = await store.mktag(
      dir,
      `object ${blob}\ntype blob\ntag b1\ntagger Test User <test@example.com> 1700000000 +0000\n\nb1\n`,
    );

    const same = async <T>(read: (sha: string) => Promise<T>, sha: string) => {
      const fast = await read(sha).catch((err: Error) => ({ rejected: true, err: !!err }));
      const slow = await read(sha.toUpperCase()).catch((err: Error) => ({ rejected: true, err: !!err }));
      expect(fast, sha).toEqual(slow);
    };
    for (const sha of [commit, tree, blob, tagged, blobTag, first, inner, missingTree]) {
      await same((s) => store.objectType(dir, s), sha);
      await same((s) => store.resolve(dir, s), sha);
      await same(async (s) => ({ ...(await store.commit(dir, s)), sha: "" }), sha);
      await same((s) => store.tag(dir, s), sha);
      await same((s) => store.blob(dir, s), sha);
      await same((s) => store.lsTree(dir, s), sha);
    }
    for (const path of [
      "dir",
      " sp ace ",
      "ünïcode",
      "dir/",
      "./dir",
      "dir//",
      "../dir",
      "dir/./deep file.txt",
      "plain",
      "plain/",
      "submodule",
      "submodule/",
      "no",
    ]) {
      await same((s) => store.lsTree(dir, s, path), commit);
    }
    for (const path of [
      "plain",
      "run.sh",
      "group-writable",
      "link",
      "submodule",
      "dir",
      "dir/deep file.txt",
      "no",
    ]) {
      await same((s) => store.entryAt(dir, s, path), commit);
    }
    await same((s) => store.lsTree(dir, s), missingTree);
    const modes = (await store.lsTree(dir, commit))!.map((e) => `${e.mode} ${e.type} ${e.path}`);
    expect(modes).toContain("040000 tree dir");
    expect(modes).toContain("100644 blob group-writable");
    expect(modes).toContain("160000 commit submodule");
  });

  it("reads blobs byte for byte: NUL bytes, newlines, and large ones asked for together", async () => {
    const binary = Buffer.from("0123456789012345678901234567890123456789 blob 5\n\0\0\n\xff", "latin1");
    const large = randomBytes(3 * 1024 * 1024 + 7);
    const ids = await Promise.all(
      [binary, large, Buffer.alloc(0)].map(async (b) =>
        (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: b })).stdout.trim(),
      ),
    );
    const read = await Promise.all([...ids, ...ids].map((id) => store.blob(dir, id)));
    expect(read.map((b) => b.length)).toEqual([
      binary.length,
      large.length,
      0,
      binary.length,
      large.length,
      0,
    ]);
    expect(read[0]!.equals(binary)).toBe(true);
    expect(read[1]!.equals(large)).toBe(true);
    expect(read[4]!.equals(large)).toBe(true);
  });

  it("replaces a reader that was killed, and the read in flight still answers", async () => {
    const large = randomBytes(8 * 1024 * 1024);
    const id = (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: large })).stdout.trim();
    expect((await store.commit(dir, first))?.message).toBe("Initial commit\n");
    const before = readerPids();
    expect(before.length).toBe(1);
    const reading = store.blob(dir, id);
    process.kill(before[0]!, "SIGKILL");
    expect((await reading).equals(large)).toBe(true);
    expect((await store.commit(dir, first))?.message).toBe("Initial commit\n");
    const after = readerPids();
    expect(after.length).toBe(1);
    expect(after[0]).not.toBe(before[0]);
  });
});

describe("a repository's reader when its directory is replaced", () => {
  it("finds none of the old repository's packed objects once forgotten", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "catfile-forget-"));
    const store = new GitStore(join(tmp, "repos"));
    const dir = store.dir("acme", "scratch");
    try {
      await store.init("acme", "scratch", "main");
      const old = (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: "old\n" })).stdout.trim();
      await runGit(dir, ["pack-objects", "-q", join(dir, "objects", "pack", "pack")], { input: `${old}\n` });
      await runGit(dir, ["prune-packed"]);
      expect(await store.objectType(dir, old)).toBe("blob");
      store.forget(dir);
      rmSync(dir, { recursive: true, force: true });
      await store.init("acme", "scratch", "main");
      expect(await store.objectType(dir, old)).toBeNull();
    } finally {
      await store.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("the forge's readers when it stops", () => {
  it("leaves no reader running once the forge has stopped", async () => {
    const forge = await startForge();
    forge.createUser("acme", { type: "Organization" });
    for (const name of ["one", "two"]) {
      const repo = await forge.createRepo(`acme/${name}`, { autoInit: true });
      const dir = forge.core.git.dir(repo.ownerLogin, repo.name);
      const main = (await forge.core.git.resolve(dir, "refs/heads/main"))!;
      expect(await forge.core.git.entryAt(dir, main, "README.md")).not.toBeNull();
    }
    expect(readerPids().length).toBe(2);
    await forge.stop();
    expect(readerPids()).toEqual([]);
  });
});
