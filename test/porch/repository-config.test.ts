import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DefaultBranchFiles } from "../../src/github/default-branch-files.js";
import { openRepository, type PorchEnv } from "../../src/porch/repository.js";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";

/**
 * A repository's configuration as the API's openings read it, its files kept by their default branch's
 * commit (github/default-branch-files.ts, as the app keeps them): its own file from git, the
 * organisation's `.github` repository's read again only when git lists its default branch moved, and
 * nothing asked by REST where the organisation has no such repository.
 */
describe("a repository's configuration, read by the API's openings", () => {
  let w: RpkgWorld;
  let cacheDir: string;
  const counted = () =>
    w.forge.requestLog.entries.filter(
      (e) => e.login === "alice" && e.method === "GET" && e.status !== 304 && e.route.includes("/contents/"),
    ).length;

  beforeAll(async () => {
    w = await rpkgWorld();
    cacheDir = mkdtempSync(join(tmpdir(), "porch-config-"));
  });
  afterAll(async () => {
    await w?.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("reads no file by REST for a repository without one in an organisation without .github, and follows the organisation's once it has one and when it changes", async () => {
    const env: PorchEnv = {
      token: w.alice,
      apiUrl: w.forge.apiUrl,
      cacheDir,
      files: new DefaultBranchFiles(),
      authorEnv: {},
    };
    const gh = w.octokit(w.alice);
    const commit = (message: string) =>
      gh.rest.repos.createOrUpdateFileContents({
        owner: "acme",
        repo: "blueprints",
        path: `notes/${message}.md`,
        message,
        content: Buffer.from(message).toString("base64"),
      });

    const first = await openRepository(env, "acme/blueprints", "get");
    expect(first.baseBranch).toBe("main");
    // a new commit of the default branch (a publish) reads the configuration again: no request counted
    await commit("one");
    const before = counted();
    expect((await openRepository(env, "acme/blueprints", "get")).baseBranch).toBe("main");
    expect(counted()).toBe(before);

    // the organisation's configuration, once there is one, is read (by REST), then kept by its branches
    await w.forge.createRepo("acme/.github", {
      files: { ".github/porchlight.yml": "baseBranch: develop\n" },
    });
    w.forge.setPermission("acme/.github", "alice", "read");
    await commit("two");
    expect((await openRepository(env, "acme/blueprints", "get")).baseBranch).toBe("develop");
    const read = counted();
    await commit("three");
    expect((await openRepository(env, "acme/blueprints", "get")).baseBranch).toBe("develop");
    expect(counted()).toBe(read);

    // the organisation's file changed, this repository not: the next opening follows it
    w.forge.setPermission("acme/.github", "alice", "write");
    await gh.rest.repos.createOrUpdateFileContents({
      owner: "acme",
      repo: ".github",
      path: ".github/porchlight.yml",
      message: "release from release",
      content: Buffer.from("baseBranch: release\n").toString("base64"),
      sha: (
        (await gh.rest.repos.getContent({ owner: "acme", repo: ".github", path: ".github/porchlight.yml" }))
          .data as { sha: string }
      ).sha,
    });
    w.forge.setPermission("acme/.github", "alice", "read");
    const changed = counted();
    expect((await openRepository(env, "acme/blueprints", "get")).baseBranch).toBe("release");
    expect((await openRepository(env, "acme/blueprints", "get")).baseBranch).toBe("release");
    // read by git at its new commit, once
    expect(counted()).toBe(changed);
  }, 60_000);
});
