import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBounded } from "../../scripts/files-diff.js";

/**
 * The file differential's bound (issue #55: a render that never returned stalled the whole corpus run):
 * a process past it is stopped with everything it started, and the run goes on.
 */
describe("files-diff's bounded run", () => {
  const dir = mkdtempSync(join(tmpdir(), "files-diff-bound-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("stops a process that runs past the bound, and the children it started", async () => {
    // A loop that never ends, with a child of its own that would outlive it.
    const r = await runBounded(
      "sh",
      ["-c", "sleep 300 & echo $! > child.pid; while :; do :; done"],
      dir,
      500,
    );
    expect(r).toMatchObject({ code: -1, timedOut: true });
    const child = Number(readFileSync(join(dir, "child.pid"), "utf8"));
    // The group got SIGKILL: the child is gone once its zombie is reaped by init, at once or soon.
    for (let i = 0; i < 50 && alive(child); i++) await new Promise((done) => setTimeout(done, 100));
    expect(alive(child)).toBe(false);
  });

  it("gives a process within the bound its exit code and stderr", async () => {
    const r = await runBounded("sh", ["-c", "echo refused >&2; exit 3"], dir, 60_000);
    expect(r).toEqual({ code: 3, stderr: "refused\n", timedOut: false });
  });

  it("reads a command that cannot start as a failure, not a time-out", async () => {
    const r = await runBounded(join(dir, "no-such-command"), [], dir, 60_000);
    expect(r.code).toBe(-1);
    expect(r.timedOut).toBe(false);
  });
});
