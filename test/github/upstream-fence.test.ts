import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Forge, startForge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitRepo } from "../../src/github/git-repo.js";
import { LOCAL_FENCE, serverFence } from "../../src/github/upstream-fence.js";
import { secretRepository } from "../util/egress-fixtures.js";

/**
 * Defence in depth: git itself, where it fetches an upstream for a server, speaks https (and http to an
 * allowed endpoint) only, whatever it is handed — a path that forgot the egress check still cannot read
 * the server's disk or run a transport helper — and resolves a name to the addresses the check saw.
 */
describe("git fetching an upstream keeps to its fence", () => {
  let tmp = "";
  let secret = "";
  let forge: Forge;
  const https = serverFence(new URL("https://example.com/"), []);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "fence-"));
    secret = secretRepository(tmp);
    forge = await startForge();
    forge.createUser("olive", { type: "Organization" });
    await forge.createRepo("olive/pkgs", { private: false, autoInit: true });
  });
  afterAll(async () => {
    await forge?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("refuses file://, a plain path and ext:: on a server's fence; the command line's reads the disk", async () => {
    const marker = join(tmp, "ext-ran");
    for (const url of [`file://${secret}`, secret, `ext::sh -c touch% ${marker}`]) {
      const git = GitRepo.upstream(url, join(tmp, "cache"), https);
      await expect(git.lsRemote()).rejects.toThrow(/transport '(file|ext)' not allowed/);
    }
    expect(existsSync(marker)).toBe(false);
    await expect(
      GitRepo.upstream(`ext::sh -c touch% ${marker}`, join(tmp, "cache"), LOCAL_FENCE).lsRemote(),
    ).rejects.toThrow(/transport 'ext' not allowed/);
    expect(existsSync(marker)).toBe(false);
    const local = await GitRepo.upstream(`file://${secret}`, join(tmp, "local"), LOCAL_FENCE).lsRemote();
    expect(local.map((r) => r.ref)).toEqual(["refs/heads/main"]);
  });

  it("refuses text git would read as an option", () => {
    expect(() => GitRepo.upstream("--upload-pack=touch /tmp/x", join(tmp, "cache"), https)).toThrow(
      /git would read it as an option/,
    );
  });

  it("resolves a name to the addresses checked, and refuses http unless the fence allows it", async () => {
    const { port } = new URL(forge.url);
    const url = `http://pinned.invalid:${port}/olive/pkgs.git`;
    const pinned = GitRepo.upstream(url, join(tmp, "pinned"), serverFence(new URL(url), ["127.0.0.1"]));
    expect((await pinned.lsRemote()).map((r) => r.ref)).toEqual(["refs/heads/main"]);
    const httpsOnly = GitRepo.upstream(forge.cloneUrl("olive/pkgs"), join(tmp, "https-only"), https);
    await expect(httpsOnly.lsRemote()).rejects.toThrow(/transport 'http' not allowed/);
  });
});
