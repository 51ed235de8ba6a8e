import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireGitSpawner, GitCommandError, runGit } from "../../src/github/git-process.js";

describe("git through the spawner process", () => {
  let held: ReturnType<typeof acquireGitSpawner> | undefined;
  afterEach(() => {
    held?.release();
    held = undefined;
  });

  it("gives the same bytes, exit codes and errors as git started directly", async () => {
    const dir = await mkdtemp(join(tmpdir(), "porchlight-spawner-"));
    try {
      const input = Buffer.from([0, 1, 2, 255, 10, 0xc3, 0x28]);
      const env = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "porchlight.x", GIT_CONFIG_VALUE_0: "from env" };
      const runAll = async (repo: string) => {
        await runGit(["init", "--quiet", "--bare", repo], { cwd: dir });
        return {
          hash: await runGit(["hash-object", "--stdin"], { cwd: dir, input }),
          config: await runGit(["config", "--get", "porchlight.x"], { cwd: dir, env }),
          failure: await runGit(["cat-file", "-p", "nosuchref"], { cwd: join(dir, repo) }).catch((e) => e),
        };
      };
      const direct = await runAll("d.git");
      held = acquireGitSpawner();
      const spawned = await runAll("s.git");
      expect(held.pid).toBeGreaterThan(0);
      expect(held.pid).not.toBe(process.pid);
      expect(spawned.hash.toString()).toBe(direct.hash.toString());
      expect(spawned.config.toString()).toBe("from env\n");
      expect(spawned.failure).toBeInstanceOf(GitCommandError);
      expect((spawned.failure as GitCommandError).exitCode).toBe(
        (direct.failure as GitCommandError).exitCode,
      );
      expect((spawned.failure as GitCommandError).stderr).toBe((direct.failure as GitCommandError).stderr);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("runs many commands at once, each answered with its own output", async () => {
    held = acquireGitSpawner();
    const out = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runGit(["hash-object", "--stdin"], { cwd: tmpdir(), input: `blob ${i}\n` }),
      ),
    );
    const direct = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runGit(["hash-object", "--stdin"], { cwd: tmpdir(), input: `blob ${i}\n` }),
      ),
    );
    expect(out.map(String)).toEqual(direct.map(String));
    expect(new Set(out.map(String)).size).toBe(20);
  });

  it("a spawner killed while git runs fails that command, and the next command starts a new one", async () => {
    held = acquireGitSpawner();
    await runGit(["--version"], { cwd: tmpdir() });
    const first = held.pid!;
    // An alias running a shell command that waits: still running when the spawner dies.
    const running = runGit(["-c", "alias.wait=!sleep 5", "wait"], { cwd: tmpdir() });
    process.kill(first, "SIGKILL");
    await expect(running).rejects.toThrow(/git spawner exited \(SIGKILL\)/);
    expect((await runGit(["--version"], { cwd: tmpdir() })).toString()).toMatch(/^git version/);
    expect(held.pid).not.toBe(first);
  });

  it("stops the spawner when the last holder releases it, and git then starts directly", async () => {
    const a = acquireGitSpawner();
    const b = acquireGitSpawner();
    await runGit(["--version"], { cwd: tmpdir() });
    const pid = a.pid!;
    a.release();
    expect(b.pid).toBe(pid);
    b.release();
    expect(b.pid).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(() => process.kill(pid, 0)).toThrow();
    expect((await runGit(["--version"], { cwd: tmpdir() })).toString()).toMatch(/^git version/);
  });
});
