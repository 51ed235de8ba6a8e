import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitFiles, GitStore, runGit } from "../src/git.js";
import { Workdir, type World, world } from "./helpers.js";

const author = { name: "Test User", email: "test@example.com" };

describe("answers the forge keeps for object ids", () => {
  const tmp = mkdtempSync(join(tmpdir(), "settled-"));
  const store = new GitStore(join(tmp, "repos"));
  const dir = store.dir("acme", "scratch");
  let first: string;

  beforeAll(async () => {
    await store.init("acme", "scratch", "main");
    first = await commitFiles(store, dir, {
      parent: null,
      files: { "a.txt": "a\n" },
      message: "first\n",
      author,
      tmpIndex: join(dir, "forge-index"),
    });
  });

  afterAll(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("asks again what a missing object answered, once the object has come", async () => {
    const tree = (await store.commit(dir, first))!.tree;
    const body = `tree ${tree}\nparent ${first}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nsecond\n`;
    const second = (
      await runGit(dir, ["hash-object", "-t", "commit", "--stdin"], { input: body })
    ).stdout.trim();
    expect(await store.isAncestor(dir, first, second)).toBe(false);
    expect(await store.mergeBase(dir, first, second)).toBeNull();
    await expect(store.revList(dir, second, [first])).rejects.toThrow();
    await runGit(dir, ["hash-object", "-w", "-t", "commit", "--stdin"], { input: body });
    expect(await store.isAncestor(dir, first, second)).toBe(true);
    expect(await store.mergeBase(dir, first, second)).toBe(first);
    expect(await store.revList(dir, second, [first])).toEqual([second]);
  });

  it("gives each caller an answer of its own to change", async () => {
    const head = await commitFiles(store, dir, {
      parent: first,
      files: { "b.txt": "b\n" },
      message: "third\n",
      author,
      tmpIndex: join(dir, "forge-index"),
    });
    const range = await store.revList(dir, head);
    expect(range).toEqual([first, head]);
    range.reverse();
    expect(await store.revList(dir, head)).toEqual([first, head]);
  });
});

describe("a pull request read again", () => {
  const shim = mkdtempSync(join(tmpdir(), "settled-shim-"));
  const calls = join(shim, "calls");
  let w: World;
  let wd: Workdir;
  let savedPath: string | undefined;

  beforeAll(async () => {
    const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
    mkdirSync(join(shim, "bin"));
    // Notes each git run by its subcommand, then runs the real git.
    writeFileSync(
      join(shim, "bin", "git"),
      `#!/bin/sh\nfor a; do case "$a" in --git-dir|*.git) ;; *) echo "$a" >> "${calls}"; break;; esac; done\nexec "${realGit}" "$@"\n`,
    );
    chmodSync(join(shim, "bin", "git"), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${join(shim, "bin")}:${savedPath}`;
    w = await world();
    wd = await Workdir.clone(w, "acme/blueprints");
  });

  afterAll(async () => {
    process.env.PATH = savedPath;
    await w.cleanup();
    rmSync(shim, { recursive: true, force: true });
  });

  const merges = () =>
    readFileSync(calls, "utf8")
      .split("\n")
      .filter((c) => c === "merge-tree").length;

  it("merges, diffs and counts its commits once for the same base and head, and anew when the head moves", async () => {
    const repo = { owner: "acme", repo: "blueprints" };
    await wd.commit("drafts/app/v1", { "app/Kptfile": "kind: Kptfile\n" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "app",
      head: "drafts/app/v1",
      base: "main",
    });
    const first = (await w.octokit.rest.pulls.get({ ...repo, pull_number: pr.number })).data;
    const before = merges();
    const again = (await w.octokit.rest.pulls.get({ ...repo, pull_number: pr.number })).data;
    expect(merges()).toBe(before);
    expect(again).toMatchObject({
      mergeable: true,
      commits: 1,
      changed_files: 1,
      additions: first.additions,
    });
    await wd.commit("drafts/app/v1", { "app/more.yaml": "a: 1\n" });
    await w.forge.webhooks.idle();
    const moved = (await w.octokit.rest.pulls.get({ ...repo, pull_number: pr.number })).data;
    expect(moved).toMatchObject({ mergeable: true, commits: 2, changed_files: 2 });
    expect(merges()).toBeGreaterThan(before);
  });
});
