import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitFiles, GitStore, runGit } from "../src/git.js";

const author = { name: "Test User", email: "test@example.com" };

describe("the files a change touches, with line counts, from one git diff-tree", () => {
  const tmp = mkdtempSync(join(tmpdir(), "forge-diff-"));
  const store = new GitStore(join(tmp, "repos"));
  const dir = store.dir("acme", "diff");
  let first: string;
  let second: string;
  const commit = (parent: string | null, files: Record<string, string | Buffer>) =>
    commitFiles(store, dir, { parent, files, message: "change", author, tmpIndex: join(tmp, "index") });

  beforeAll(async () => {
    await store.init("acme", "diff", "main");
    first = await commit(null, {
      ":colon.txt": "one\ntwo\nthree\nfour\nfive\n",
      "tab\tname.txt": "a\n",
      "bin.dat": Buffer.from([0, 1, 2, 3]),
      "gone.txt": "x\ny\n",
    });
    // the whole tree of the second commit (a throwaway index in a bare repository cannot remove paths)
    second = await commit(null, {
      ":renamed.txt": "one\ntwo\nthree\nfour\nfive\nsix\n",
      "tab\tname.txt": "a\nb\n",
      "bin.dat": Buffer.from([0, 1, 2, 4]),
      "new.txt": "n\n",
    });
  });
  afterAll(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("names with a colon and a tab, a rename, a binary file, an addition and a removal", async () => {
    const blob = async (path: string) =>
      (await runGit(dir, ["rev-parse", `${second}:${path}`])).stdout.trim();
    const changes = await store.diff(dir, first, second);
    expect(changes).toEqual([
      {
        status: "renamed",
        filename: ":renamed.txt",
        previousFilename: ":colon.txt",
        sha: await blob(":renamed.txt"),
        additions: 1,
        deletions: 0,
      },
      { status: "modified", filename: "bin.dat", sha: await blob("bin.dat"), additions: 0, deletions: 0 },
      { status: "removed", filename: "gone.txt", sha: "0".repeat(40), additions: 0, deletions: 2 },
      { status: "added", filename: "new.txt", sha: await blob("new.txt"), additions: 1, deletions: 0 },
      {
        status: "modified",
        filename: "tab\tname.txt",
        sha: await blob("tab\tname.txt"),
        additions: 1,
        deletions: 0,
      },
    ]);
  });

  it("against the empty tree for a root commit, and nothing between a commit and itself", async () => {
    const changes = await store.diff(dir, null, first);
    expect(changes.map((c) => [c.status, c.filename, c.additions])).toEqual([
      ["added", ":colon.txt", 5],
      ["added", "bin.dat", 0],
      ["added", "gone.txt", 2],
      ["added", "tab\tname.txt", 1],
    ]);
    expect(await store.emptyTree(dir)).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
    expect((await runGit(dir, ["cat-file", "-t", await store.emptyTree(dir)])).stdout.trim()).toBe("tree");
    expect(await store.diff(dir, second, second)).toEqual([]);
  });
});
