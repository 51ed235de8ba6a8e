import { execFile } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Forge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenAuthEnv } from "../../src/github/git-process.js";
import { GitRepo } from "../../src/github/git-repo.js";
import { type FileTree, treeToText } from "../../src/kpt/tree.js";
import { gitCalls } from "./git-calls.js";
import { files, pkgsOnForge } from "./pkgs-on-forge.js";

// git runs beside the forge, which answers from this process: never a synchronous child
const run = promisify(execFile);
const author = { name: "porchlight[bot]", email: "bot@example.com" };

/**
 * Every push the bot makes, asked in process over smart HTTP and of `git push`: the same refs end where
 * they end, the same refusals are refused, for each repository's own branch names.
 */
describe.each([
  { how: "in process", inProcess: true },
  { how: "by git push", inProcess: false },
])("pushes $how", ({ inProcess }) => {
  let forge: Forge;
  let tmp: string;
  let url: string;
  let token: string;
  let bot: GitRepo;
  /** Another writer: a GitRepo of its own, as a person's pushes are to the bot. */
  let person: GitRepo;
  let main: string;

  const refs = async () => new Map((await person.lsRemote()).map((r) => [r.ref, r.sha]));
  const commit = (
    repo: GitRepo,
    input: { branch: string; parent: string | null; tree: FileTree; replaces?: string },
  ) => repo.commitTree({ ...input, dir: "app", message: "edit", author });

  beforeAll(async () => {
    ({ forge, token, url, tmp } = await pkgsOnForge("push-http-"));
    const auth = async () => tokenAuthEnv(token);
    bot = new GitRepo(url, join(tmp, "bot"), auth, undefined, false, false, inProcess);
    person = new GitRepo(url, join(tmp, "person"), auth, undefined, false, false, false);
    main = await bot.fetch("refs/heads/main");
    await person.fetch("refs/heads/main");
  });
  afterAll(async () => {
    await forge.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("makes a branch, moves it forward, refuses to move it back or past another writer's commit", async () => {
    const first = await commit(bot, {
      branch: "drafts/app/a",
      parent: main,
      tree: files(200, (i) => `n: ${i}\n`),
    });
    if (!first.ok) throw new Error(`refused: ${first.reason}`);
    const second = await commit(bot, {
      branch: "drafts/app/a",
      parent: first.sha,
      tree: files(200, (i) => `n: ${i}\n${i === 3 ? "x: 1\n" : ""}`),
    });
    if (!second.ok) throw new Error(`refused: ${second.reason}`);
    expect((await refs()).get("refs/heads/drafts/app/a")).toBe(second.sha);
    // a commit on the first again (not a descendant of the branch's head): non-fast-forward
    const back = await commit(bot, {
      branch: "drafts/app/a",
      parent: first.sha,
      tree: files(1, () => "b\n"),
    });
    expect(back).toEqual({ ok: false, reason: "non-fast-forward" });
    // the person moves the branch on; the bot's commit on the head it knew is refused
    await person.fetch("refs/heads/drafts/app/a");
    const theirs = await commit(person, {
      branch: "drafts/app/a",
      parent: second.sha,
      tree: files(1, () => "p\n"),
    });
    if (!theirs.ok) throw new Error(`refused: ${theirs.reason}`);
    const late = await commit(bot, {
      branch: "drafts/app/a",
      parent: second.sha,
      tree: files(1, () => "l\n"),
    });
    expect(late).toEqual({ ok: false, reason: "non-fast-forward" });
    expect((await refs()).get("refs/heads/drafts/app/a")).toBe(theirs.sha);
    // the files arrived whole
    await person.fetch("refs/heads/drafts/app/a");
    expect(treeToText(await person.readTree(second.sha, "app"))).toEqual(
      treeToText(files(200, (i) => `n: ${i}\n${i === 3 ? "x: 1\n" : ""}`)),
    );
  });

  it("replaces a branch only while it is where the lease says", async () => {
    const base = await commit(bot, {
      branch: "drafts/app/b",
      parent: main,
      tree: files(5, (i) => `b: ${i}\n`),
    });
    if (!base.ok) throw new Error(`refused: ${base.reason}`);
    const stale = await commit(bot, {
      branch: "drafts/app/b",
      parent: main,
      tree: files(2, () => "s\n"),
      replaces: main,
    });
    expect(stale).toEqual({ ok: false, reason: "non-fast-forward" });
    // a commit that is not a descendant replaces it under a lease that holds
    const replaced = await commit(bot, {
      branch: "drafts/app/b",
      parent: main,
      tree: files(3, () => "r\n"),
      replaces: base.sha,
    });
    if (!replaced.ok) throw new Error(`refused: ${replaced.reason}`);
    expect((await refs()).get("refs/heads/drafts/app/b")).toBe(replaced.sha);
  });

  it("tags a commit and deletes its branch in one push; the tag again is there; a taken tag is left", async () => {
    const made = await commit(bot, {
      branch: "drafts/app/t",
      parent: main,
      tree: files(4, (i) => `t: ${i}\n`),
    });
    if (!made.ok) throw new Error(`refused: ${made.reason}`);
    expect(await bot.createTag("app/v1", made.sha, { branch: "drafts/app/t", at: made.sha })).toEqual({
      kind: "created",
    });
    let now = await refs();
    expect(now.get("refs/tags/app/v1")).toBe(made.sha);
    expect(now.has("refs/heads/drafts/app/t")).toBe(false);
    expect(await bot.createTag("app/v1", made.sha)).toEqual({ kind: "exists" });
    // taken by another commit: neither the tag moves nor the branch goes
    const other = await commit(bot, {
      branch: "drafts/app/u",
      parent: main,
      tree: files(4, (i) => `u: ${i}\n`),
    });
    if (!other.ok) throw new Error(`refused: ${other.reason}`);
    expect(await bot.createTag("app/v1", other.sha, { branch: "drafts/app/u", at: other.sha })).toEqual({
      kind: "exists",
    });
    now = await refs();
    expect(now.get("refs/tags/app/v1")).toBe(made.sha);
    expect(now.get("refs/heads/drafts/app/u")).toBe(other.sha);
    // the branch moved on meanwhile: the tag alone
    expect(await bot.createTag("app/v2", other.sha, { branch: "drafts/app/u", at: main })).toEqual({
      kind: "created",
    });
    now = await refs();
    expect(now.get("refs/tags/app/v2")).toBe(other.sha);
    expect(now.get("refs/heads/drafts/app/u")).toBe(other.sha);
  });

  it("deletes a branch only while it is at the commit it was told; one gone is gone", async () => {
    const made = await commit(bot, {
      branch: "drafts/app/d",
      parent: main,
      tree: files(2, (i) => `d: ${i}\n`),
    });
    if (!made.ok) throw new Error(`refused: ${made.reason}`);
    expect(await bot.deleteRefIf("refs/heads/drafts/app/d", main)).toBe("moved");
    expect(await bot.deleteRefIf("refs/heads/drafts/app/d", made.sha)).toBe("deleted");
    expect(await bot.deleteRefIf("refs/heads/drafts/app/d", made.sha)).toBe("gone");
    // git's push of a deletion of a ref the remote lacks is done (receive-pack warns "deleting a
    // non-existent ref"); in process it is told as gone, as deleteBranch says
    expect((await bot.deleteBranch("drafts/app/d")).kind).toBe(inProcess ? "gone" : "deleted");
    const again = await commit(bot, {
      branch: "drafts/app/d",
      parent: main,
      tree: files(2, (i) => `d: ${i}\n`),
    });
    if (!again.ok) throw new Error(`refused: ${again.reason}`);
    expect(await bot.deleteBranch("drafts/app/d")).toEqual({ kind: "deleted" });
    expect((await refs()).has("refs/heads/drafts/app/d")).toBe(false);
  });

  it.runIf(inProcess)(
    "runs no git push; a parent the remote lacks after all is pushed by git, whole",
    async () => {
      const cache = join(tmp, "bot", readdirSync(join(tmp, "bot"))[0] as string);
      let pushed: Awaited<ReturnType<typeof commit>> | undefined;
      const calls = await gitCalls(tmp, async () => {
        pushed = await commit(bot, {
          branch: "drafts/app/e",
          parent: main,
          tree: files(20, (i) => `e: ${i}\n`),
        });
      });
      if (!pushed?.ok) throw new Error("refused");
      expect(calls.filter((c) => c.startsWith("push"))).toEqual([]);
      // a commit the clone made and never pushed, named as the next one's parent
      const tree = (
        await run("git", ["--git-dir", cache, "rev-parse", `${pushed.sha}^{tree}`])
      ).stdout.trim();
      const local = (
        await run("git", ["--git-dir", cache, "commit-tree", tree, "-p", pushed.sha, "-m", "local only"], {
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: "a",
            GIT_AUTHOR_EMAIL: "a@x",
            GIT_COMMITTER_NAME: "a",
            GIT_COMMITTER_EMAIL: "a@x",
          },
        })
      ).stdout.trim();
      let next: Awaited<ReturnType<typeof commit>> | undefined;
      const fallback = await gitCalls(tmp, async () => {
        next = await commit(bot, {
          branch: "drafts/app/e",
          parent: local,
          tree: files(20, (i) => `e2: ${i}\n`),
        });
      });
      if (!next?.ok) throw new Error(`refused: ${next?.ok === false ? next.reason : ""}`);
      expect(fallback.filter((c) => c.startsWith("push"))).toHaveLength(1);
      await person.fetch("refs/heads/drafts/app/e");
      expect((await person.parentChange(next.sha)).parent).toBe(local);
    },
  );
});
