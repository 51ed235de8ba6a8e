import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Forge, startForge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GitCommandError,
  type GitFailureKind,
  gitFailureKind,
  tokenAuthEnv,
} from "../../src/github/git-process.js";
import { lsRemoteHttp } from "../../src/github/git-refs-http.js";
import { GitRepo } from "../../src/github/git-repo.js";
import { treeFromText } from "../../src/kpt/tree.js";
import { type PorchError, porchErrorOf } from "../../src/porch/errors.js";
import { describeFailure } from "../../src/porch/failure-text.js";

const author = { name: "porchlight[bot]", email: "bot@example.com" };

/** What git (2.3x–2.4x) says on stderr for each kind, as GitHub and the forge make it say it. */
const SAID: Record<GitFailureKind, string[]> = {
  forbidden: [
    "remote: Permission to acme/pkgs.git denied to carol.\nfatal: unable to access 'https://github.com/acme/pkgs.git/': The requested URL returned error: 403\n",
  ],
  auth: [
    "remote: Invalid username or password.\nfatal: Authentication failed for 'https://github.com/acme/pkgs.git/'\n",
    // credentials asked for, no prompt to ask them at
    "fatal: could not read Username for 'http://127.0.0.1:4000': terminal prompts disabled\n",
  ],
  "not-found": [
    "remote: Repository not found.\nfatal: repository 'https://github.com/acme/nope.git/' not found\n",
    "fatal: '/tmp/nope' does not appear to be a git repository\nfatal: Could not read from remote repository.\n",
  ],
  unreachable: [
    "fatal: unable to access 'https://nohost.invalid/x.git/': Could not resolve host: nohost.invalid\n",
    "fatal: unable to access 'http://127.0.0.1:1/x.git/': Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server\n",
    "fatal: unable to access 'https://github.com/acme/pkgs.git/': The requested URL returned error: 502\n",
  ],
  protocol: ["fatal: protocol error: bad line length character: <htm\n"],
  rejected: [
    // behind the branch; a lease lost; a deletion of a ref gone; a porcelain push (its reasons on stdout)
    "To https://github.com/acme/pkgs.git\n ! [rejected]        abc -> drafts/app/ws (fetch first)\nerror: failed to push some refs to 'https://github.com/acme/pkgs.git'\nhint: Updates were rejected because the remote contains work that you do not\n",
    " ! [rejected]        abc -> drafts/app/ws (stale info)\nerror: failed to push some refs to 'https://github.com/acme/pkgs.git'\n",
    "error: unable to delete 'refs/heads/drafts/app/ws': remote ref does not exist\nerror: failed to push some refs to 'https://github.com/acme/pkgs.git'\n",
    "error: failed to push some refs to 'https://github.com/acme/pkgs.git'\n",
  ],
  missing: [
    "fatal: couldn't find remote ref refs/heads/drafts/app/none\n",
    "fatal: invalid object name 'porchlight/catalog'.\n",
    "fatal: path 'catalog.yaml' does not exist in 'origin/porchlight/catalog'\n",
    "fatal: remote error: upload-pack: not our ref 0123abcd\n",
  ],
  other: ["fatal: not a git repository (or any of the parent directories): .git\n"],
};

describe("git's own words, read once where git runs", () => {
  it.each(Object.entries(SAID).flatMap(([kind, texts]) => texts.map((text) => [kind, text] as const)))(
    "%s: %j",
    (kind, stderr) => {
      expect(gitFailureKind(stderr)).toBe(kind);
    },
  );
});

describe("git's failures over the forge, typed where they happen and read by kind", () => {
  let forge: Forge;
  let tmp: string;
  let url: string;
  let writer: string;
  let reader: string;
  let main: string;
  let made = 0;

  /** A clone whose credentials are `token`'s, counting how often it was asked to renew them. */
  const cloneOf = (token: string) => {
    const renewals = { count: 0 };
    const repo = new GitRepo(url, join(tmp, `clone-${made++}`), async (renew) => {
      if (renew) renewals.count++;
      return tokenAuthEnv(token);
    });
    return { repo, renewals };
  };
  const commit = (repo: GitRepo, branch: string, text: string) =>
    repo.commitTree({
      branch,
      parent: main,
      dir: "app",
      tree: treeFromText({ Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\n", "a.yaml": text }),
      message: text,
      author,
    });
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => expect.unreachable("it succeeded"),
      (e: unknown) => e,
    );

  beforeAll(async () => {
    forge = await startForge();
    forge.createUser("acme", { type: "Organization" });
    await forge.createRepo("acme/pkgs", { autoInit: true });
    writer = forge.createUser("alice", { pat: true }).pat as string;
    reader = forge.createUser("carol", { pat: true }).pat as string;
    forge.setPermission("acme/pkgs", "alice", "write");
    forge.setPermission("acme/pkgs", "carol", "read");
    tmp = mkdtempSync(join(tmpdir(), "git-failures-"));
    url = `${forge.url}/acme/pkgs.git`;
    main = await cloneOf(writer).repo.fetch("refs/heads/main");
  });
  afterAll(async () => {
    await forge.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("a push with a token that may only read is forbidden, and the user is told who gives write access", async () => {
    const { repo } = cloneOf(reader);
    await repo.fetch(main);
    const e = await failureOf(commit(repo, "drafts/app/carol", "a: 1\n"));
    expect(e).toBeInstanceOf(GitCommandError);
    expect((e as GitCommandError).kind).toBe("forbidden");
    expect((porchErrorOf(e) as PorchError).kind).toBe("forbidden");
    expect(describeFailure(e, "acme/pkgs")).toMatch(
      /^the token may read acme\/pkgs but not write to it \(git push was refused: HTTP 403\); ask an administrator of acme\/pkgs/,
    );
  });

  it("a token the server does not know is auth, asked again once with renewed credentials", async () => {
    const { repo, renewals } = cloneOf("not-a-token");
    const e = await failureOf(repo.fetch("refs/heads/main"));
    expect((e as GitCommandError).kind).toBe("auth");
    expect(renewals.count).toBe(1);
    // refused the token: the engine's forbidden, git's own words to the user (no advice on write access)
    expect((porchErrorOf(e) as PorchError).kind).toBe("forbidden");
    expect(describeFailure(e, "acme/pkgs")).toBe(`git failed talking to acme/pkgs: ${(e as Error).message}`);
  });

  it("a push that lost the race to the branch is non-fast-forward, not a failure", async () => {
    const first = cloneOf(writer).repo;
    const second = cloneOf(writer).repo;
    await first.fetch(main);
    await second.fetch(main);
    expect(await commit(first, "drafts/app/race", "first: 1\n")).toMatchObject({ ok: true });
    expect(await commit(second, "drafts/app/race", "second: 1\n")).toEqual({
      ok: false,
      reason: "non-fast-forward",
    });
  });

  it("a deletion with a lease tells a branch moved from one gone", async () => {
    const repo = cloneOf(writer).repo;
    await repo.fetch(main);
    const pushed = await commit(repo, "drafts/app/gone", "g: 1\n");
    if (!pushed.ok) throw new Error("the push was refused");
    expect(await repo.deleteRefIf("refs/heads/drafts/app/gone", main)).toBe("moved");
    expect(await repo.deleteRefIf("refs/heads/drafts/app/gone", pushed.sha)).toBe("deleted");
    expect(await repo.deleteRefIf("refs/heads/drafts/app/gone", pushed.sha)).toBe("gone");
  });
});

describe("git's protocol spoken in process: the kind told by the HTTP answer", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // answers every request with the status its path names; 200 with what is no git answer
    server = createServer((req, res) => {
      const status = Number(req.url?.split("/")[1]);
      res.writeHead(status);
      res.end(status === 200 ? "<html>a login page</html>" : "");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each<[number, GitFailureKind]>([
    [401, "auth"],
    [403, "forbidden"],
    [404, "not-found"],
    [500, "unreachable"],
    [503, "unreachable"],
    [418, "other"],
    [200, "protocol"],
  ])("HTTP %i is %s", async (status, kind) => {
    await expect(lsRemoteHttp(`${base}/${status}/acme/pkgs.git`, {})).rejects.toMatchObject({ kind });
  });

  it("a server not listening is unreachable", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(lsRemoteHttp(`http://127.0.0.1:${port}/acme/pkgs.git`, {})).rejects.toMatchObject({
      kind: "unreachable",
    });
  });
});
