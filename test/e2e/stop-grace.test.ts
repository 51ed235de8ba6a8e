import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kptfile, settings } from "../util/krm.js";
import { type ChildWorld, startApp, startChildWorld, stopApp } from "./app-child.js";

/** Resolves once `ready` says so (asked every 50 ms, for 30 s at most), else fails with `context`. */
async function until(ready: () => Promise<boolean>, context: () => string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not so after 30 s:\n${context()}`);
}

/** The stop's grace the app is given here; it exits within it and a few seconds more. */
const GRACE_MS = 2000;

/**
 * SIGTERM while a render runs: `porchlight serve` (a child process, on the forge over HTTP and git)
 * waits for its running jobs no longer than PORCHLIGHT_STOP_GRACE_MS, then abandons them — the render's
 * thread ended, its function's process killed, nothing written to GitHub — and the next start's sweep
 * renders the draft. The package's one function is an exec that says it started, then sleeps 30 s on the
 * first app (longer than the grace and the margin together) and not at all once the test says so.
 */
describe("a stop within its grace (app as a child process, forge over HTTP and git)", () => {
  let w: ChildWorld;
  let marks: string;
  const owner = "acme";
  const repo = "blueprints";

  beforeAll(async () => {
    marks = mkdtempSync(join(tmpdir(), "stop-grace-"));
    const script = `touch ${marks}/started; [ -e ${marks}/fast ] || sleep 30; cat`;
    w = await startChildWorld({
      "README.md": "# blueprints\n",
      ".github/porchlight.yml": "functions:\n  runtimes: [builtin, exec]\n",
      "apps/web/Kptfile": kptfile("web", `pipeline:\n  mutators:\n  - exec: sh -c '${script}'\n`),
      "apps/web/cm.yaml": settings("0"),
    });
  });
  afterAll(async () => {
    await w?.stop();
    if (marks) rmSync(marks, { recursive: true, force: true });
  });

  it("SIGTERM mid-render exits within the grace, writes nothing, and the restart's sweep renders the draft", async () => {
    const env = { PORCHLIGHT_ALLOW_EXEC: "1", PORCHLIGHT_STOP_GRACE_MS: String(GRACE_MS) };
    const first = await startApp(w.forge, w.creds, env);
    w.apps.push(first);
    const alice = w.rest("alice");
    const main = (await alice.git.getRef({ owner, repo, ref: "heads/main" })).data.object.sha;
    const branch = "drafts/apps/web/slow";
    await alice.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: main });
    const old = (await alice.repos.getContent({ owner, repo, path: "apps/web/cm.yaml", ref: branch }))
      .data as { sha: string };
    const pushed = await alice.repos.createOrUpdateFileContents({
      owner,
      repo,
      path: "apps/web/cm.yaml",
      branch,
      message: "v: 1",
      content: Buffer.from(settings("1")).toString("base64"),
      sha: old.sha,
    });
    const head = pushed.data.commit.sha as string;
    // the function's mark is a file, not the forge's state: looked at until it is there
    await until(
      async () => existsSync(join(marks, "started")),
      () => first.output(),
    );

    // SIGTERM while the function sleeps: the app exits within the grace (and a margin), not after it.
    w.forge.setWebhookUrl(null);
    const exited = once(first.child, "exit");
    const asked = performance.now();
    first.child.kill("SIGTERM");
    const [code] = await exited;
    const tookMs = performance.now() - asked;
    expect(code, first.output()).toBe(0);
    expect(tookMs, first.output()).toBeLessThan(GRACE_MS + 5000);
    expect(first.output()).toContain("abandoned");

    // Nothing half-written: the draft is where alice left it, and no render check was written on it.
    const renderChecks = async () =>
      (await alice.checks.listForRef({ owner, repo, ref: head })).data.check_runs.filter(
        (r) => r.name === "porchlight/render",
      );
    expect((await alice.git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha).toBe(head);
    expect(await renderChecks()).toEqual([]);

    // The restart's start-up sweep renders the draft: its check is completed.
    writeFileSync(join(marks, "fast"), "");
    const second = await startApp(w.forge, w.creds, env);
    w.apps.push(second);
    await until(
      async () => (await renderChecks()).some((r) => r.status === "completed"),
      () => second.output(),
    );
    const check = (await renderChecks()).find((r) => r.status === "completed");
    expect(check?.conclusion, `${check?.output.title}\n${second.output()}`).toBe("success");
    await stopApp(w.forge, second);
  }, 90_000);
});
