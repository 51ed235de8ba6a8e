import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../../src/app/server.js";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import type { Renderer } from "../../src/jobs/renderer.js";
import { nginxDeployment, nginxKptfile } from "../util/krm.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { appOnForge } from "./harness.js";

const run = promisify(execFile);

const KPTFILE = nginxKptfile("app");
const DEPLOYMENT = (n: number) => nginxDeployment("1.25", `web-${n}`);

/**
 * The renderer of every replica in the test: kpt's, with a count of renders running at once (all of
 * one repository here) and, when `hang` is set, a first render that never ends (its replica "dies").
 */
class Probe implements Renderer {
  private readonly inner = new KptRenderer();
  running = 0;
  most = 0;
  hang?: () => void;
  /** The next render says it started, then waits for `until` (Redis going down under it). */
  pause?: { entered: () => void; until: Promise<void> };
  async render(...args: Parameters<Renderer["render"]>) {
    this.most = Math.max(this.most, ++this.running);
    try {
      if (this.hang) {
        const entered = this.hang;
        this.hang = undefined;
        entered();
        await new Promise(() => {});
      }
      if (this.pause) {
        const { entered, until } = this.pause;
        this.pause = undefined;
        entered();
        await until;
      }
      // A render takes time (kpt's builtins run in this process, synchronously): room for another to overlap.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return await this.inner.render(...args);
    } finally {
      this.running--;
    }
  }
  validate(...args: Parameters<Renderer["validate"]>) {
    return this.inner.validate(...args);
  }
  runtimesNeeded(...args: Parameters<Renderer["runtimesNeeded"]>) {
    return this.inner.runtimesNeeded(...args);
  }
}

describe.skipIf(!hasRedis)(
  `two replicas sharing one Redis, on the forge over HTTP and git${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let forge: Forge;
    let prefix: string;
    let temp: string;
    let creds: ReturnType<Forge["createApp"]>;
    let alice: Octokit;
    let pat: string;
    let probe = new Probe();
    const replicas: AppServer[] = [];

    const startReplica = async (name: string, url = TEST_REDIS_URL) => {
      const app = await startAppServer({
        ...appOnForge(forge, creds),
        retryAfterUnitMs: 1,
        renderer: probe,
        redis: {
          url,
          prefix,
          replica: name,
          lockMs: 1500,
          stalledIntervalMs: 200,
          busyDelayMs: 20,
        },
        log: pino({ level: process.env.E2E_LOG ?? "silent" }),
      });
      replicas.push(app);
      return app;
    };

    /** Pushes draft `branch` as alice; returns the push's delivery (recorded, not sent: no webhook URL). */
    const push = async (branch: string, files: Record<string, string>) => {
      const dir = mkdtempSync(join(temp, "clone-"));
      const u = new URL(forge.cloneUrl("acme/blueprints"));
      u.username = "alice";
      u.password = pat;
      const env = {
        ...process.env,
        GIT_AUTHOR_NAME: "alice",
        GIT_AUTHOR_EMAIL: "a@x",
        GIT_COMMITTER_NAME: "alice",
        GIT_COMMITTER_EMAIL: "a@x",
      };
      const git = async (...args: string[]) => (await run("git", args, { cwd: dir, env })).stdout.trim();
      await run("git", ["clone", "--quiet", u.toString(), dir], { env });
      await git("checkout", "--quiet", "-B", branch);
      for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
      await git("add", "-A");
      await git("commit", "--quiet", "-m", `edit ${branch}`);
      await git("push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
      const sha = await git("rev-parse", "HEAD");
      for (let i = 0; i < 10_000; i++) {
        await forge.webhooks.idle();
        const d = forge.webhooks.find("push").find((x) => (x.payload as { after?: string }).after === sha);
        if (d) return d;
        await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error(`no push delivery for ${sha}`);
    };

    /** Sends a recorded delivery to a replica, as GitHub would: same id, same signed body. */
    const deliver = async (d: Awaited<ReturnType<typeof push>>, app: AppServer) => {
      const res = await fetch(app.webhookUrl, {
        method: "POST",
        headers: d.requestHeaders,
        body: JSON.stringify(d.payload),
      });
      return { status: res.status, text: await res.text() };
    };

    const botCommits = async (branch: string) => {
      const { data } = await alice.repos.listCommits({ owner: "acme", repo: "blueprints", sha: branch });
      return data.filter((c) => c.commit.author?.name === "porchlight[bot]").length;
    };
    const renderCheck = async (branch: string) => {
      const { data } = await alice.checks.listForRef({ owner: "acme", repo: "blueprints", ref: branch });
      return data.check_runs.filter((c) => c.name === "porchlight/render").map((c) => c.conclusion);
    };
    const jobsRun = async (kind: string) => {
      let n = 0;
      for (const app of replicas) {
        const text = await (await fetch(`${app.url}/metrics`)).text();
        const line = text
          .split("\n")
          .find((l) => l.startsWith(`porchlight_jobs_total{kind="${kind}",outcome="ok"`));
        n += Number(line?.split(" ").pop() ?? 0);
      }
      return n;
    };

    beforeEach(async () => {
      prefix = testPrefix("replicas");
      temp = mkdtempSync(join(tmpdir(), "porchlight-replicas-"));
      forge = await startForge();
      creds = forge.createApp({ name: "porchlight", owner: "acme" });
      forge.createUser("acme", { type: "Organization" });
      await forge.createRepo("acme/blueprints", {
        files: { "app/Kptfile": KPTFILE, "app/deploy.yaml": DEPLOYMENT(0) },
        private: true,
      });
      forge.createInstallation(creds.appId, "acme");
      pat = forge.createUser("alice", { pat: true }).pat as string;
      forge.setPermission("acme/blueprints", "alice", "write");
      alice = new Octokit({ baseUrl: forge.apiUrl, auth: pat });
      probe = new Probe();
    });

    afterEach(async () => {
      await Promise.all(replicas.splice(0).map((a) => a.close({ abandon: true }).catch(() => {})));
      await forge.stop();
      await dropPrefix(prefix);
      rmSync(temp, { recursive: true, force: true });
    });

    it("a delivery sent to both replicas at once is worked once; /healthz and /metrics speak of Redis", async () => {
      const [a, b] = [await startReplica("a"), await startReplica("b")];
      const d = await push("drafts/app/v1", { "app/deploy.yaml": DEPLOYMENT(1) });

      const answers = await Promise.all([deliver(d, a), deliver(d, b)]);
      await a.idle();

      expect(answers.map((x) => x.status)).toEqual([200, 200]);
      expect(answers.filter((x) => x.text.includes("already accepted"))).toHaveLength(1);
      expect(await jobsRun("render")).toBe(1);
      expect(await botCommits("drafts/app/v1")).toBe(1);
      expect(await renderCheck("drafts/app/v1")).toEqual(["success"]);
      expect(await (await fetch(`${b.url}/healthz`)).text()).toBe("ok\nredis: reachable\n");
      const metrics = (
        await Promise.all([a, b].map(async (app) => (await fetch(`${app.url}/metrics`)).text()))
      ).join("");
      expect(metrics).toContain('porchlight_queue_jobs{queue="jobs",state="waiting",replica="b"} 0');
      expect(metrics).toMatch(/porchlight_queue_wait_seconds_count\{replica="[ab]",queue="jobs"\} 1\n/);
    });

    it("a job whose replica dies mid-way is worked by the other and ends as one replica leaves it", async () => {
      const [a, b] = [await startReplica("a"), await startReplica("b")];
      let entered!: () => void;
      const hung = new Promise<void>((resolve) => (entered = resolve));
      probe.hang = entered;
      const d = await push("drafts/app/v2", { "app/deploy.yaml": DEPLOYMENT(2) });

      expect((await deliver(d, a)).status).toBe(200);
      await hung;
      // Whichever replica took the job dies in the middle of it: it never finishes nor fails.
      const dying = (a.redisQueue?.runningHere ?? 0) > 0 ? a : b;
      const survivor = dying === a ? b : a;
      await dying.close({ abandon: true });
      replicas.splice(replicas.indexOf(dying), 1);
      await survivor.idle();

      expect(await botCommits("drafts/app/v2")).toBe(1);
      expect(await renderCheck("drafts/app/v2")).toEqual(["success"]);
      // Taken up again as stalled: once, or more where a busy machine held the survivor's lock renewal
      // past the lock's 1.5 s too (counted 3 at load 15-20); the one commit above is what must hold.
      const metrics = await (await fetch(`${survivor.url}/metrics`)).text();
      const stalled =
        /porchlight_queue_retries_total\{queue="jobs",reason="stalled",replica="[ab]"\} (\d+)/.exec(metrics);
      expect(Number(stalled?.[1] ?? 0)).toBeGreaterThanOrEqual(1);
    });

    it("one repository's jobs never run at once, though its webhooks reach both replicas", async () => {
      const [a, b] = [await startReplica("a"), await startReplica("b")];
      const branches = ["drafts/app/w1", "drafts/app/w2", "drafts/app/w3", "drafts/app/w4"];
      const deliveries = [];
      for (const [i, branch] of branches.entries())
        deliveries.push(await push(branch, { "app/deploy.yaml": DEPLOYMENT(10 + i) }));

      const answers = await Promise.all(deliveries.map((d, i) => deliver(d, i % 2 ? b : a)));
      await a.idle();

      expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200]);
      expect(probe.most).toBe(1);
      for (const branch of branches) {
        expect(await botCommits(branch)).toBe(1);
        expect(await renderCheck(branch)).toEqual(["success"]);
      }
    });

    it("Redis restarted mid-run: webhooks meanwhile are answered 503, then the replica reconnects and loses nothing it accepted", async () => {
      const redis = await ownRedis(temp);
      try {
        const a = await startReplica("a", redis.url);
        const accepted = await push("drafts/app/r1", { "app/deploy.yaml": DEPLOYMENT(21) });
        const refused = await push("drafts/app/r2", { "app/deploy.yaml": DEPLOYMENT(22) });
        let entered!: () => void;
        const inRender = new Promise<void>((resolve) => (entered = resolve));
        probe.pause = { entered, until: redis.stopped };

        expect((await deliver(accepted, a)).status).toBe(200);
        await inRender;
        await redis.stop();
        const whileDown = await deliver(refused, a);
        const healthDown = await fetch(`${a.url}/healthz`);
        await redis.start();
        for (let i = 0; i < 500 && (await fetch(`${a.url}/healthz`)).status !== 200; i++)
          await new Promise((resolve) => setTimeout(resolve, 20));
        const redelivered = await deliver(refused, a);
        await a.idle();

        expect(whileDown.status).toBe(503);
        expect(whileDown.text).toContain("redeliver");
        expect(healthDown.status).toBe(503);
        expect(await healthDown.text()).toBe("redis: unreachable\n");
        expect(redelivered.status).toBe(200);
        for (const branch of ["drafts/app/r1", "drafts/app/r2"]) {
          expect(await botCommits(branch)).toBe(1);
          expect(await renderCheck(branch)).toEqual(["success"]);
        }
      } finally {
        await Promise.all(replicas.splice(0).map((x) => x.close({ abandon: true }).catch(() => {})));
        await redis.stop();
      }
    });
  },
);

/**
 * A Redis server of the test's own (the shared one is never stopped), on a free port, keeping its
 * data in an append-only file so a restart keeps what was accepted, as a production Redis does.
 */
async function ownRedis(dir: string) {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  let child: ChildProcess | undefined;
  let stoppedNow!: () => void;
  const stopped = new Promise<void>((resolve) => (stoppedNow = resolve));
  const start = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--dir",
        dir,
      ],
      { stdio: "ignore" },
    );
    for (let i = 0; i < 500; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        const s = connect(port, "127.0.0.1", () => {
          s.end();
          resolve(true);
        }).on("error", () => resolve(false));
      });
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("redis-server did not start");
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once("exit", resolve));
    c.kill("SIGTERM");
    await exited;
    stoppedNow();
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop, stopped };
}
