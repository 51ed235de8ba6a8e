import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitFiles, GitStore, runGit } from "../src/git.js";
import { PackedRefsMemo, plainRefName, readRef, readRefs } from "../src/reffiles.js";

const author = { name: "Test User", email: "test@example.com" };

/** git's own listing, as the forge asked for it before it read the files. */
async function gitRefs(dir: string): Promise<Map<string, string>> {
  const { stdout } = await runGit(dir, ["for-each-ref", "--format=%(objectname) %(refname)"]);
  return new Map(
    stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.slice(41), line.slice(0, 40)] as [string, string]),
  );
}

/** git's answer for a name, before peeling (null: git finds no such ref). */
async function gitRef(dir: string, rev: string): Promise<string | null> {
  const { stdout, code } = await runGit(dir, ["rev-parse", "--verify", "--quiet", rev], { allowFail: true });
  return code === 0 ? stdout.trim() : null;
}

async function readAll(dir: string, memo?: PackedRefsMemo): Promise<Map<string, string>> {
  const read = await readRefs(dir, memo);
  if (read.kind !== "read") throw new Error(`asked git: ${read.why}`);
  return read.refs;
}

describe("reading a bare repository's refs from its files, as git lists and resolves them", () => {
  const tmp = mkdtempSync(join(tmpdir(), "reffiles-"));
  const store = new GitStore(join(tmp, "repos"));
  const dir = store.dir("acme", "refs");
  const commits: string[] = [];
  let tree: string;
  let annotated: string;
  const update = (ref: string, sha: string) => runGit(dir, ["update-ref", ref, sha]);
  /** Each name git might be asked to resolve in these tests. */
  const names = [
    "refs/heads/main",
    "refs/heads/feature/a",
    "refs/heads/feature/b",
    "refs/heads/packed-only",
    "refs/heads/odd",
    "refs/heads/z",
    "refs/heads/gone",
    "refs/tags/v1",
    "refs/tags/light",
    "refs/tags/tree",
    "refs/pull/1/head",
    "refs/heads/nothing",
  ];

  /**
   * packed-refs as last parsed, kept across every case here while git packs, adds and deletes: a file
   * git replaced is read again, never answered from the one before.
   */
  const memo = new PackedRefsMemo();

  async function expectAsGit(): Promise<void> {
    const listed = [...(await gitRefs(dir))];
    expect([...(await readAll(dir))]).toEqual(listed);
    expect([...(await readAll(dir, memo))]).toEqual(listed);
    for (const name of names) {
      const read = await readRef(dir, name);
      expect(read, name).toEqual({ kind: "read", sha: await gitRef(dir, name) });
      expect(await readRef(dir, name, memo), name).toEqual(read);
      // through the store: peeled to a commit, as `rev-parse <name>^{commit}` answers
      expect(await store.resolve(dir, name), name).toBe(await gitRef(dir, `${name}^{commit}`));
    }
  }

  beforeAll(async () => {
    await store.init("acme", "refs", "main");
    let parent: string | null = null;
    for (let i = 0; i < 4; i++) {
      parent = await commitFiles(store, dir, {
        parent,
        files: { [`f${i}.txt`]: `${i}\n` },
        message: `commit ${i}`,
        author,
        tmpIndex: join(tmp, "index"),
      });
      commits.push(parent);
    }
    tree = (await runGit(dir, ["rev-parse", `${commits[0]}^{tree}`])).stdout.trim();
    annotated = (
      await runGit(dir, ["mktag"], {
        input: `object ${commits[1]}\ntype commit\ntag v1\ntagger Test User <test@example.com> 0 +0000\n\nv1\n`,
      })
    ).stdout.trim();
  });
  afterAll(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("an empty repository has no refs, and no name resolves", async () => {
    expect((await readAll(dir)).size).toBe(0);
    await expectAsGit();
  });

  it("loose refs, nested names and both kinds of tag; a lock file (a write in progress) is not a ref", async () => {
    await update("refs/heads/main", commits[3]!);
    await update("refs/heads/feature/a", commits[1]!);
    await update("refs/heads/feature/b", commits[2]!);
    await update("refs/tags/v1", annotated);
    await update("refs/tags/light", commits[0]!);
    await update("refs/tags/tree", tree);
    await update("refs/pull/1/head", commits[2]!);
    writeFileSync(join(dir, "refs/heads/main.lock"), `${commits[0]}\n`);
    await expectAsGit();
    rmSync(join(dir, "refs/heads/main.lock"));
    // the annotated tag is listed as the tag object, resolved to its commit
    expect((await readAll(dir)).get("refs/tags/v1")).toBe(annotated);
    expect(await store.resolve(dir, "refs/tags/v1")).toBe(commits[1]);
    expect(await store.resolve(dir, "refs/tags/tree")).toBeNull();
  });

  it("packed refs, loose refs overriding them, refs deleted from both", async () => {
    await update("refs/heads/packed-only", commits[0]!);
    await update("refs/heads/gone", commits[0]!);
    await runGit(dir, ["pack-refs", "--all"]);
    expect((await readAll(dir)).get("refs/heads/packed-only")).toBe(commits[0]);
    await expectAsGit();
    // a loose ref overrides its packed value
    await update("refs/heads/feature/a", commits[3]!);
    await update("refs/heads/new", commits[2]!);
    expect((await readAll(dir)).get("refs/heads/feature/a")).toBe(commits[3]);
    await expectAsGit();
    // deleted while packed and loose, and while packed only
    await update("refs/heads/gone", commits[1]!);
    await runGit(dir, ["update-ref", "-d", "refs/heads/gone"]);
    await runGit(dir, ["update-ref", "-d", "refs/heads/new"]);
    await runGit(dir, ["update-ref", "-d", "refs/tags/light"]);
    const refs = await readAll(dir);
    for (const gone of ["refs/heads/gone", "refs/heads/new", "refs/tags/light"])
      expect(refs.has(gone), gone).toBe(false);
    await expectAsGit();
  });

  it("a name resolves as rev-parse finds it: the first of git's candidates, loose or packed", async () => {
    // refs/heads/odd is missing; git's fourth candidate for it, refs/heads/refs/heads/odd, is there
    await update("refs/heads/refs/heads/odd", commits[1]!);
    expect(await readRef(dir, "refs/heads/odd")).toEqual({ kind: "read", sha: commits[1] });
    await expectAsGit();
    // refs/heads/z packed and a later candidate loose: the packed first candidate wins
    await update("refs/heads/z", commits[2]!);
    await runGit(dir, ["pack-refs", "--all"]);
    await update("refs/tags/refs/heads/z", commits[0]!);
    expect(await readRef(dir, "refs/heads/z")).toEqual({ kind: "read", sha: commits[2] });
    await expectAsGit();
  });

  it("hands to git what is not plain, and the store's answers stay git's", async () => {
    await runGit(dir, ["symbolic-ref", "refs/heads/alias", "refs/heads/main"]);
    expect(await readRefs(dir)).toMatchObject({ kind: "ask-git", why: "refs/heads/alias is a symbolic ref" });
    expect((await readRef(dir, "refs/heads/alias")).kind).toBe("ask-git");
    expect([...(await store.refs(dir))]).toEqual([...(await gitRefs(dir))]);
    expect((await store.refs(dir)).get("refs/heads/alias")).toBe(commits[3]);
    expect(await store.resolve(dir, "refs/heads/alias")).toBe(commits[3]);
    await runGit(dir, ["symbolic-ref", "--delete", "refs/heads/alias"]);

    // a name git refuses, written by hand: git leaves it out; the files are not read past it
    writeFileSync(join(dir, "refs/heads/bad name"), `${commits[0]}\n`);
    expect((await readRefs(dir)).kind).toBe("ask-git");
    expect([...(await store.refs(dir))]).toEqual([...(await gitRefs(dir))]);
    rmSync(join(dir, "refs/heads/bad name"));

    // a file that is not an object id
    writeFileSync(join(dir, "refs/heads/broken"), "not an id\n");
    expect((await readRefs(dir)).kind).toBe("ask-git");
    rmSync(join(dir, "refs/heads/broken"));

    // another ref store or a shared directory
    for (const entry of ["reftable", "commondir"]) {
      mkdirSync(join(dir, entry));
      expect((await readRefs(dir)).kind, entry).toBe("ask-git");
      expect((await readRef(dir, "refs/heads/main")).kind, entry).toBe("ask-git");
      rmSync(join(dir, entry), { recursive: true });
    }
    // a directory that is no repository: git's error, as before
    const none = join(tmp, "none.git");
    expect(await readRefs(none)).toMatchObject({ kind: "ask-git" });
    expect((await readRef(none, "refs/heads/main")).kind).toBe("ask-git");
    await expect(store.refs(none)).rejects.toThrow(/for-each-ref/);
    // a name that is not a ref's (an id, a short name, an expression)
    for (const rev of ["main", "HEAD", commits[0]!.slice(0, 7), "refs/heads/main^", "refs/heads/main@{1}"])
      expect((await readRef(dir, rev)).kind, rev).toBe("ask-git");
    await expectAsGit();
  });

  it("check-ref-format's rules, for names under refs/", () => {
    for (const ok of ["refs/heads/main", "refs/tags/v1.0", "refs/pull/12/head", "refs/heads/ünï", "refs/x"])
      expect(plainRefName(ok), ok).toBe(true);
    for (const bad of [
      "refs/heads/a..b",
      "refs/heads/.hidden",
      "refs/heads/a.lock",
      "refs/heads/a/",
      "refs/heads/a.",
      "refs/heads/a b",
      "refs/heads/a~1",
      "refs/heads/a:b",
      "refs/heads/a@{0}",
      "refs/heads//a",
      "refs/heads/a\\b",
      "heads/main",
    ])
      expect(plainRefName(bad), bad).toBe(false);
  });

  it("while git moves, packs and deletes refs, each read is a value the ref had, and a ref never gone is never missed", async () => {
    const values = commits.slice(0, 3);
    await update("refs/heads/stable", values[0]!);
    const writer = (async () => {
      for (let i = 0; i < 15; i++) {
        await update("refs/heads/stable", values[i % 3]!);
        await update("refs/heads/churn", values[(i + 1) % 3]!);
        await runGit(dir, ["pack-refs", "--all"]);
        await update("refs/heads/stable", values[(i + 2) % 3]!);
        await runGit(dir, ["update-ref", "-d", "refs/heads/churn"]);
      }
    })();
    let done = false;
    void writer.finally(() => {
      done = true;
    });
    let reads = 0;
    while (!done) {
      const listed = await readRefs(dir);
      expect(listed.kind).toBe("read");
      if (listed.kind === "read") {
        expect(values).toContain(listed.refs.get("refs/heads/stable"));
        const churn = listed.refs.get("refs/heads/churn");
        if (churn !== undefined) expect(values).toContain(churn);
      }
      const one = await readRef(dir, "refs/heads/stable");
      expect(one.kind === "read" && values.includes(one.sha!)).toBe(true);
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  });
});
