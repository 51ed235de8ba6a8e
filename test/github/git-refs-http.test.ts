import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Forge, startForge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenAuthEnv } from "../../src/github/git-process.js";
import { lsRemoteHttp, pkt } from "../../src/github/git-refs-http.js";
import { GitRepo } from "../../src/github/git-repo.js";

// git runs beside the forge, which answers from this process: never a synchronous child
const run = promisify(execFile);
const authed = (token: string) => ({ ...process.env, ...tokenAuthEnv(token), GIT_TERMINAL_PROMPT: "0" });

/** `git ls-remote --heads --tags URL` run by git itself, as `sha\tref` lines. */
async function gitLsRemote(url: string, token: string): Promise<string> {
  return (await run("git", ["ls-remote", "--heads", "--tags", url], { env: authed(token) })).stdout;
}

const lines = (refs: { sha: string; ref: string }[]) => refs.map((r) => `${r.sha}\t${r.ref}\n`).join("");
const basic = (token: string) => ({
  authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
});

describe("refs over smart HTTP in process (git ls-remote's answer without git)", () => {
  let forge: Forge;
  let token: string;
  let tmp: string;
  let url: string;

  beforeAll(async () => {
    forge = await startForge();
    forge.createUser("acme", { type: "Organization" });
    await forge.createRepo("acme/refs", { autoInit: true });
    await forge.createRepo("acme/empty");
    token = forge.createUser("alice", { pat: true }).pat as string;
    forge.setPermission("acme/refs", "alice", "write");
    forge.setPermission("acme/empty", "alice", "write");
    tmp = mkdtempSync(join(tmpdir(), "refs-http-"));
    url = `${forge.url}/acme/refs.git`;
    // branches, a lightweight tag and an annotated one (ls-remote lists it and its peeled commit)
    const work = join(tmp, "work");
    const git = (...args: string[]) =>
      run("git", ["-c", "user.name=A", "-c", "user.email=a@example.com", ...args], {
        cwd: work,
        env: authed(token),
      });
    await run("git", ["clone", "-q", url, work], { env: authed(token) });
    await git("commit", "-q", "--allow-empty", "-m", "second");
    await git("tag", "app/v1");
    await git("tag", "-a", "app/v2", "-m", "annotated");
    await git("push", "-q", "origin", "HEAD:refs/heads/drafts/app/ws", "app/v1", "app/v2");
  });
  afterAll(async () => {
    await forge.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("lists what git ls-remote --heads --tags lists, in its order, peeled tags included (protocol v2)", async () => {
    const asked = forge.requestLog.entries.length;
    const refs = await lsRemoteHttp(url, basic(token));
    // one round trip: v2's ls-refs asked straight away, without the advertisement git asks for first
    expect(forge.requestLog.entries.slice(asked).map((e) => `${e.method} ${e.path}`)).toEqual([
      "POST /acme/refs.git/git-upload-pack",
    ]);
    expect(refs.some((r) => r.ref === "refs/tags/app/v2^{}")).toBe(true);
    expect(lines(refs)).toBe(await gitLsRemote(url, token));
    expect(await lsRemoteHttp(`${forge.url}/acme/empty.git`, basic(token))).toEqual([]);
  });

  it("reads a server that answers protocol v0 from its advertisement alone", async () => {
    const bare = join(tmp, "v0.git");
    await run("git", ["clone", "-q", "--bare", url, bare], { env: authed(token) });
    // a server that knows no v2: git's own v0 advertisement of the same refs (and one of pull requests)
    await run("git", ["--git-dir", bare, "update-ref", "refs/pull/1/head", "HEAD"]);
    const advert = (
      await run("git", ["upload-pack", "--stateless-rpc", "--advertise-refs", bare], {
        env: { ...process.env, GIT_PROTOCOL: "" },
        encoding: "buffer",
      })
    ).stdout;
    const requests: string[] = [];
    const server: Server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url?.replace(/^.*\.git/, "")}`);
      // git's v0 upload-pack reads `want` lines: a v2 command is a protocol error to it
      if (req.method === "POST") {
        res.setHeader("content-type", "application/x-git-upload-pack-result");
        res.end(`${pkt("ERR protocol error: expected 'want ', got 'command=ls-refs'")}`);
        return;
      }
      res.setHeader("content-type", "application/x-git-upload-pack-advertisement");
      res.end(Buffer.concat([Buffer.from("001e# service=git-upload-pack\n0000"), advert]));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const v0 = `http://127.0.0.1:${(server.address() as AddressInfo).port}/acme/refs.git`;
      expect(lines(await lsRemoteHttp(v0, {}))).toBe(await gitLsRemote(url, token));
      // v2's command first, not answered as v2; then the advertisement, as git asks
      expect(requests).toEqual(["POST /git-upload-pack", "GET /info/refs?service=git-upload-pack"]);
    } finally {
      server.close();
    }
  });

  it("fails as git fails, its kind told by the status: a refused token, a repository not there", async () => {
    await expect(lsRemoteHttp(url, basic("not-a-token"))).rejects.toMatchObject({
      stderr: expect.stringContaining("Authentication failed"),
      kind: "auth",
    });
    await expect(lsRemoteHttp(`${forge.url}/acme/nothing.git`, basic(token))).rejects.toMatchObject({
      stderr: expect.stringContaining("not found"),
      kind: "not-found",
    });
  });

  it("a GitRepo told to list its refs so, renewing a refused token once, and fetches what it listed", async () => {
    // the cached token has expired; a renewal replaces it
    let asked = 0;
    let current = "expired";
    const repo = new GitRepo(
      url,
      join(tmp, "cache"),
      async (renew) => {
        asked++;
        if (renew) current = token;
        return tokenAuthEnv(current);
      },
      undefined,
      false,
      true,
    );
    const refs = await repo.lsRemote();
    expect(lines(refs)).toBe(await gitLsRemote(url, token));
    expect(asked).toBe(2);
    const main = refs.find((r) => r.ref === "refs/heads/main")?.sha as string;
    expect(await repo.fetch(main)).toBe(main);
  });

  it("the app's GitRepo lists its refs so too: one request, no git started", async () => {
    const app = new GitRepo(url, join(tmp, "app-cache"), async () => tokenAuthEnv(token));
    const from = forge.requestLog.entries.length;
    expect(lines(await app.lsRemote())).toBe(await gitLsRemote(url, token));
    // git ls-remote asks the advertisement first (GET info/refs); the listing in process does not
    expect(forge.requestLog.entries.slice(from, from + 1).map((e) => `${e.method} ${e.path}`)).toEqual([
      "POST /acme/refs.git/git-upload-pack",
    ]);
  });
});
