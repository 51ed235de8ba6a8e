import { type Forge, startForge } from "@porchlight/forge";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../../src/app/server.js";
import { serveCommand } from "../../src/cli/serve.js";
import { WEB_KPTFILE, webSettings } from "../e2e/harness.js";
import { captureIO } from "../util/cli-io.js";

/**
 * A forge where a draft branch was pushed while no app listened (the webhook went nowhere): only a
 * sweep can find it.
 */
async function worldWithMissedPush(): Promise<{
  forge: Forge;
  creds: ReturnType<Forge["createApp"]>;
  sha: string;
}> {
  const forge = await startForge();
  const creds = forge.createApp({ name: "porchlight", owner: "acme" });
  forge.setWebhookUrl(null);
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/blueprints", {
    files: { "README.md": "# b\n", "apps/web/Kptfile": WEB_KPTFILE, "apps/web/cm.yaml": webSettings("1") },
  });
  forge.createInstallation(creds.appId, "acme");
  const repo = forge.repo("acme/blueprints");
  const dir = forge.core.git.dir(repo.ownerLogin, repo.name);
  const sha = (await forge.core.git.resolve(dir, "refs/heads/main")) as string;
  await forge.core.git.updateRef(dir, "refs/heads/drafts/apps/web/missed", sha, "0".repeat(40));
  return { forge, creds, sha };
}

const renderCheck = (forge: Forge, sha: string) =>
  forge.core.store.data.checkRuns.find((r) => r.headSha === sha && r.name === "porchlight/render");

describe("the sweep of a long-running app", () => {
  let forge: Forge | undefined;
  let app: AppServer | undefined;
  afterEach(async () => {
    await app?.close();
    await forge?.stop();
    app = undefined;
    forge = undefined;
  });

  it("`serve` with credentials sweeps at start-up: a push made while it was down is rendered at once", async () => {
    const world = await worldWithMissedPush();
    forge = world.forge;
    const host = new URL(forge.url).host;
    const io = captureIO({
      env: {
        APP_ID: String(world.creds.appId),
        PRIVATE_KEY: world.creds.privateKeyPem,
        WEBHOOK_SECRET: world.creds.webhookSecret,
        GHE_HOST: host,
        GHE_PROTOCOL: "http",
        PORT: "0",
        HOST: "127.0.0.1",
        PORCHLIGHT_WRITE_INTERVAL_MS: "0",
        LOG_LEVEL: "silent",
      },
    });
    const running = serveCommand([], io);
    try {
      // The default interval is 15 minutes: only a start-up sweep renders it within the wait.
      const check = await forge.waitFor(() => renderCheck(forge!, world.sha), "porchlight/render", 20_000);
      expect(check.status).toBe("completed");
      expect(io.out()).toContain("porchlight: listening on");
    } finally {
      process.emit("SIGTERM");
      expect(await running).toBe(0);
    }
  });

  it("keeps sweeping tick after tick with a short interval, past a sweep that failed", async () => {
    const world = await worldWithMissedPush();
    forge = world.forge;
    // The first sweep's listing of installations fails; the ones after must still come.
    forge.faults.add({ route: "/app/installations", method: "GET", status: 404, times: 1 });
    app = await startAppServer({
      appId: world.creds.appId,
      privateKey: world.creds.privateKeyPem,
      webhookSecret: world.creds.webhookSecret,
      baseUrl: forge.apiUrl,
      port: 0,
      writeIntervalMs: 0,
      reconcileIntervalMs: 1,
      sweepAtStart: true,
      log: pino({ level: "silent" }),
    });
    const listed = () => forge!.requestLog.count({ method: "GET", route: "/app/installations", status: 200 });
    await forge.waitFor(() => listed() >= 3, "three sweeps");
    const metrics = await app.metrics.text();
    expect(metrics).toMatch(/porchlight_sweeps_total\{outcome="error"\} 1\b/);
    expect(Number(/porchlight_sweeps_total\{outcome="ok"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(
      2,
    );
    await forge.waitFor(() => renderCheck(forge!, world.sha), "the missed draft rendered");
  });
});
