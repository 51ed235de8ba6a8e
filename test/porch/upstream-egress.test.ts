import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitCommandError } from "../../src/github/git-process.js";
import { openUpstream } from "../../src/porch/upstream.js";
import { egressPolicy, UpstreamUnreachable } from "../../src/sources/egress.js";
import { closedPort, connectionCounter } from "../util/egress-fixtures.js";

/**
 * A server's fetch of an upstream someone named: git reaches a name only at the addresses the policy
 * judged (its curl pinned to them, no lookup of its own), and whatever git or the HTTP client met on
 * the way, the caller reads one message — an open port that speaks no TLS and a closed one look alike —
 * while the server is told what happened.
 */
describe("an upstream a server fetches: pinned, and unreachable in one word", () => {
  let open: Awaited<ReturnType<typeof connectionCounter>>;
  let closed = 0;
  let tmp = "";

  beforeAll(async () => {
    [open, closed] = await Promise.all([connectionCounter(), closedPort()]);
    tmp = mkdtempSync(join(tmpdir(), "upstream-egress-"));
  });
  afterAll(async () => {
    await open?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** How openUpstream fails for `repo` under `policy`: the error, and what the server was told. */
  const failure = async (repo: string, policy = egressPolicy(["127.0.0.1"])) => {
    const told: UpstreamUnreachable[] = [];
    // a tarball is fetched when its version is resolved; git's refs are listed on opening
    const err = await openUpstream(repo, { egress: { policy, field: "SOURCE", report: (f) => told.push(f) } })
      .then((up) => up.resolve("", "/"))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    return { err, told };
  };

  it("connects to the address the policy judged for a name nothing else resolves", async () => {
    // forge.test resolves nowhere but in the policy: a connection can only come through git's pin
    const policy = egressPolicy(["127.0.0.1"], {
      lookup: async (host) => (host === "forge.test" ? ["127.0.0.1"] : []),
    });
    const before = open.connections();
    const { err } = await failure(`https://forge.test:${open.port}/acme/x.git`, policy);
    expect(err).toBeInstanceOf(UpstreamUnreachable);
    expect(open.connections()).toBeGreaterThan(before);
  }, 30_000);

  it("says the same of an open port and a closed one, for git and for a tarball, and tells the server what git said", async () => {
    const said = async (path: string) => {
      const [a, b] = [
        await failure(`https://127.0.0.1:${open.port}${path}`),
        await failure(`https://127.0.0.1:${closed}${path}`),
      ];
      for (const { err } of [a, b]) expect(err).toBeInstanceOf(Error);
      const text = (r: typeof a, port: number) => (r.err as Error).message.replaceAll(String(port), "PORT");
      expect(text(a, open.port)).toBe(text(b, closed));
      return { a, b, message: text(a, open.port) };
    };
    const git = await said("/acme/x.git");
    expect(git.message).toBe(
      'upstream repository "https://127.0.0.1:PORT/acme/x.git" could not be reached, or it refused the connection; check the address',
    );
    // the server's log has git's own words, which differ
    const stderr = (r: typeof git.a) => (r.told[0] as UpstreamUnreachable).cause as GitCommandError;
    expect(stderr(git.a)).toBeInstanceOf(GitCommandError);
    expect(stderr(git.a).stderr).not.toBe(stderr(git.b).stderr.replaceAll(String(closed), String(open.port)));
    const tarball = await said("/web.tar.gz");
    expect(tarball.message).toContain(
      "https://127.0.0.1:PORT could not be reached, or it refused the connection",
    );
  }, 30_000);
});
