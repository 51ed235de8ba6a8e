import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commitFiles, GitStore, runGit } from "../src/git.js";

describe("commitFiles in a bare repository", () => {
  const tmp = mkdtempSync(join(tmpdir(), "commit-files-"));
  const store = new GitStore(join(tmp, "repos"));
  const dir = store.dir("acme", "blueprints");
  const author = { name: "Test User", email: "test@example.com" };
  const commit = (parent: string | null, files: Record<string, string | null>) =>
    commitFiles(store, dir, { parent, files, message: "m\n", author, tmpIndex: join(dir, "forge-index") });
  const paths = async (sha: string) =>
    (await runGit(dir, ["ls-tree", "-r", "--name-only", sha])).stdout.split("\n").filter(Boolean);

  afterAll(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("adds, changes and deletes paths, a path with a space and a tab too, on the parent's tree", async () => {
    await store.init("acme", "blueprints", "main");
    const first = await commit(null, { "README.md": "# x\n", "a/b.yaml": "b: 1\n", "a/c d.yaml": "c: 1\n" });
    expect(await paths(first)).toEqual(["README.md", "a/b.yaml", "a/c d.yaml"]);
    const second = await commit(first, { "a/b.yaml": null, "a/c d.yaml": "c: 2\n", "e\tf.yaml": "e: 1\n" });
    expect(await paths(second)).toEqual(["README.md", "a/c d.yaml", '"e\\tf.yaml"']);
    expect((await runGit(dir, ["show", `${second}:a/c d.yaml`])).stdout).toBe("c: 2\n");
    expect((await runGit(dir, ["rev-parse", `${second}^`])).stdout.trim()).toBe(first);
  });
});
