import { execFile } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Forge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packOf } from "../../src/github/git-fetch-http.js";
import { GitCommandError, tokenAuthEnv } from "../../src/github/git-process.js";
import { GitRepo } from "../../src/github/git-repo.js";
import { GitObjectCache } from "../../src/github/object-cache.js";
import { type FileTree, treeToText } from "../../src/kpt/tree.js";
import { files, pkgsOnForge } from "./pkgs-on-forge.js";

// git runs beside the forge, which answers from this process: never a synchronous child
const run = promisify(execFile);
const author = { name: "porchlight[bot]", email: "bot@example.com" };
const BRANCH = "drafts/app/ws";

describe("a branch fetched in process over smart HTTP (protocol v2: want the head, have the clone's tips)", () => {
  let forge: Forge;
  let token: string;
  let tmp: string;
  let url: string;
  /** Another writer of the branch: a GitRepo of its own, as a person's pushes are to the bot. */
  let person: GitRepo;
  let head: string;

  const auth = (t: string) => async () => tokenAuthEnv(t);
  const clone = (name: string, inProcess = true, authEnv = auth(token)) =>
    new GitRepo(url, join(tmp, name), authEnv, undefined, false, false, inProcess);
  const cacheOf = (name: string) => join(tmp, name, readdirSync(join(tmp, name))[0] as string);
  /** The person commits `tree` on the branch's head. */
  const push = async (tree: FileTree) => {
    await person.fetch(head);
    const pushed = await person.commitTree({
      branch: BRANCH,
      parent: head,
      dir: "app",
      tree,
      message: "edit",
      author,
    });
    if (!pushed.ok) throw new Error(`push refused: ${pushed.reason}`);
    head = pushed.sha;
    return head;
  };
  /** The git requests the forge answered so far: advertisements and upload-pack POSTs (ls-refs, fetch). */
  const gitRequests = () => {
    const count = (method: string, end: string) =>
      forge.requestLog.entries.filter((e) => e.method === method && e.path.endsWith(end)).length;
    return { get: count("GET", "/info/refs"), post: count("POST", "/git-upload-pack") };
  };
  const fsck = (dir: string) => run("git", ["--git-dir", dir, "fsck", "--full", "--no-dangling"]);

  beforeAll(async () => {
    ({ forge, token, url, tmp } = await pkgsOnForge("fetch-http-"));
    person = clone("person");
    const main = await person.fetch("refs/heads/main");
    head = main;
    await push(files(300, (i) => `n: ${i}\n${"x".repeat(200 + i)}\n`));
  });
  afterAll(async () => {
    await forge.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("fetches each new head with one ls-refs and one fetch, the clone whole and the files as pushed; the subprocess path reads the same", async () => {
    const bot = clone("bot");
    const git = clone("git", false);
    // the first fetch of a clone with nothing in it is git's
    expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(head);
    expect(await git.fetch(`refs/heads/${BRANCH}`)).toBe(head);
    // a small edit (a few objects: unpacked), then many files (a pack: index-pack with its thin deltas)
    const edits: FileTree[] = [
      files(300, (i) => `n: ${i}\n${"x".repeat(200 + i)}\n${i === 7 ? "edited: true\n" : ""}`),
      files(300, (i) => `n: ${i}\n${"y".repeat(200 + i)}\n`),
    ];
    for (const tree of edits) {
      const sha = await push(tree);
      const before = gitRequests();
      expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(sha);
      const after = gitRequests();
      // no advertisement: the ls-refs answered in v2 tells the server speaks it
      expect(after.post - before.post).toBe(2);
      expect(after.get - before.get).toBe(0);
      expect(treeToText(await bot.readTree(sha, "app"))).toEqual(treeToText(tree));
      // git's own fetch: the advertisement, then ls-refs and fetch
      const viaGit = gitRequests();
      expect(await git.fetch(`refs/heads/${BRANCH}`)).toBe(sha);
      expect(gitRequests().get - viaGit.get).toBe(1);
      expect(treeToText(await git.readTree(sha, "app"))).toEqual(treeToText(tree));
    }
    await fsck(cacheOf("bot"));
    expect(readdirSync(join(cacheOf("bot"), "objects", "pack")).some((f) => f.endsWith(".idx"))).toBe(true);
  });

  it("asks for no pack when the clone holds the head already (its own push), and fetches on from there", async () => {
    const bot = clone("own");
    await bot.fetch(`refs/heads/${BRANCH}`);
    await bot.fetch(`refs/heads/${BRANCH}`);
    const tree = files(300, (i) => `n: ${i}\nbot: ${i}\n`);
    const pushed = await bot.commitTree({
      branch: BRANCH,
      parent: head,
      dir: "app",
      tree,
      message: "r",
      author,
    });
    if (!pushed.ok) throw new Error("the bot's push was refused");
    head = pushed.sha;
    const before = gitRequests();
    expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(pushed.sha);
    expect(gitRequests().post - before.post).toBe(1);
    const next = await push(files(300, (i) => `n: ${i}\nbot: ${i}\n${i === 3 ? "more: 1\n" : ""}`));
    expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(next);
    expect((await bot.readTree(next, "app")).get("f-3.yaml")?.toString()).toBe("n: 3\nbot: 3\nmore: 1\n");
    await fsck(cacheOf("own"));
  });

  it("renews a refused token once, as git's fetch does", async () => {
    let renewed = 0;
    let current = token;
    const bot = clone("renew", true, async (renew?: boolean) => {
      if (renew) {
        renewed++;
        current = token;
      }
      return tokenAuthEnv(current);
    });
    await bot.fetch(`refs/heads/${BRANCH}`);
    const sha = await push(files(300, (i) => `n: ${i}\nrenew: ${i}\n`));
    // the token expired meanwhile: refused, renewed, asked again
    current = "expired";
    expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(sha);
    expect(renewed).toBe(1);
  });

  it("fails as git does for a branch the server does not have", async () => {
    const bot = clone("gone");
    await bot.fetch(`refs/heads/${BRANCH}`);
    const failure = await bot.fetch("refs/heads/drafts/app/none").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).kind).toBe("missing");
  });

  it("fetches commits by their ids in one request, offering the clone's recent tips; one the server lacks fails as git's fetch does", async () => {
    const bot = clone("by-id");
    await bot.fetch(`refs/heads/${BRANCH}`);
    const first = await push(files(300, (i) => `n: ${i}\nby-id: ${i}\n`));
    const second = await push(files(300, (i) => `n: ${i}\nby-id: ${i}\n${i === 5 ? "again: 1\n" : ""}`));
    const before = gitRequests();
    const messages = await bot.commitMessages([first, second]);
    // one POST (the fetch), no advertisement: git's fetch asks the advertisement first
    expect(gitRequests()).toEqual({ get: before.get, post: before.post + 1 });
    expect([messages.get(first), messages.get(second)].map((m) => m?.split("\n")[0])).toEqual([
      "edit",
      "edit",
    ]);
    expect((await bot.readTree(second, "app")).get("f-5.yaml")?.toString()).toBe(
      "n: 5\nby-id: 5\nagain: 1\n",
    );
    await fsck(cacheOf("by-id"));
    // a commit the server does not hold: refused in process, then git's own fetch reports it
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const failure = await bot.commitMessages([missing]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).stderr).toMatch(/0123456789abcdef/);
  });

  describe("a server that answers protocol v0 only", () => {
    let proxy: Server;
    let proxyUrl: string;

    beforeAll(async () => {
      // the forge behind a proxy that drops the Git-Protocol header: git http-backend then answers v0
      const target = new URL(forge.url);
      proxy = createServer((req, res) => {
        const headers = { ...req.headers };
        delete headers["git-protocol"];
        const out = request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        req.pipe(out);
      });
      await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/acme/pkgs.git`;
    });
    afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

    it("is fetched by git", async () => {
      const bot = new GitRepo(proxyUrl, join(tmp, "v0"), auth(token), undefined, false, false, true);
      await bot.fetch(`refs/heads/${BRANCH}`);
      const sha = await push(files(300, (i) => `n: ${i}\nv0: ${i}\n`));
      const before = gitRequests();
      expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(sha);
      const after = gitRequests();
      // the ls-refs asked in process, not answered in v2; then git's fetch over v0: its advertisement
      // and one upload-pack
      expect(after.get - before.get).toBe(1);
      expect(after.post - before.post).toBe(2);
      expect(treeToText(await bot.readTree(sha, "app"))).toEqual(
        treeToText(files(300, (i) => `n: ${i}\nv0: ${i}\n`)),
      );
      // the next fetch from that server goes to git at once: no ls-refs asked in vain
      const next = await push(files(300, (i) => `n: ${i}\nv0 again: ${i}\n`));
      const again = gitRequests();
      expect(await bot.fetch(`refs/heads/${BRANCH}`)).toBe(next);
      const last = gitRequests();
      expect(last.get - again.get).toBe(1);
      expect(last.post - again.post).toBe(1);
    });

    it("is left to git by the app's next jobs too, which share its GitObjectCache", async () => {
      const blobs = new GitObjectCache();
      const job = () => new GitRepo(proxyUrl, join(tmp, "v0-app"), auth(token), blobs, false, false, true);
      await job().fetch(`refs/heads/${BRANCH}`);
      // the first job holding a tip asks in process, is not answered in v2, and goes to git
      await push(files(300, (i) => `n: ${i}\nv0 app: ${i}\n`));
      await job().fetch(`refs/heads/${BRANCH}`);
      // the next job goes to git at once: its advertisement and one upload-pack, no ls-refs in vain
      const next = await push(files(300, (i) => `n: ${i}\nv0 app again: ${i}\n`));
      const before = gitRequests();
      expect(await job().fetch(`refs/heads/${BRANCH}`)).toBe(next);
      const after = gitRequests();
      expect(after.get - before.get).toBe(1);
      expect(after.post - before.post).toBe(1);
    });
  });

  it("reads a pack from its side-band and refuses an answer without one, or with the server's error", () => {
    const line = (b: Buffer) => Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, "0")), b]);
    const pack = Buffer.concat([Buffer.from("PACK"), Buffer.from([0, 0, 0, 2, 0, 0, 0, 0])]);
    const answer = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from("0000")]);
    const band = (n: number, b: Buffer) => line(Buffer.concat([Buffer.from([n]), b]));
    expect(
      packOf(
        answer(
          line(Buffer.from("packfile\n")),
          band(2, Buffer.from("counting\n")),
          band(1, pack.subarray(0, 5)),
          band(1, pack.subarray(5)),
        ),
        "u",
      ),
    ).toEqual(pack);
    expect(() =>
      packOf(answer(line(Buffer.from("acknowledgments\n")), line(Buffer.from("NAK\n"))), "u"),
    ).toThrow(/without a pack/);
    expect(() =>
      packOf(answer(line(Buffer.from("packfile\n")), band(3, Buffer.from("upload-pack: not our ref"))), "u"),
    ).toThrow(/not our ref/);
    expect(() => packOf(Buffer.from("zzzz"), "u")).toThrow(/bad line length/);
  });
});
