import { startForge } from "@porchlight/forge";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../../packages/forge/test/helpers.js";
import { startAppServer } from "../../src/app/server.js";
import { appOnForge } from "./harness.js";

/**
 * Restarted while the installation's GitHub budget is spent: the start-up sweep fails, /healthz says degraded
 * and when the next sweep runs — at the limit's reset, not an interval later — until one succeeds.
 */
describe("a start-up sweep that meets a spent rate limit (forge over HTTP)", () => {
  it("makes /healthz degraded, naming the failure and the next sweep at the reset", async () => {
    const clock = Date.now();
    const now = () => new Date(clock);
    const forge = await startForge({ now });
    const creds = forge.createApp({ name: "porchlight", owner: "acme", privateKeyPem: TEST_KEY });
    forge.createUser("acme", { type: "Organization" });
    await forge.createRepo("acme/blueprints", { files: { "README.md": "# blueprints\n" } });
    const installation = forge.createInstallation(creds.appId, "acme").id;
    forge.rateLimit.primary({ windowMs: 60_000 });
    forge.rateLimit.exhaust(`installation:${installation}`);
    const app = await startAppServer({
      ...appOnForge(forge, creds),
      maxWaitS: 5,
      now,
      sweepAtStart: true,
      reconcileIntervalMs: 0,
      log: pino({ level: process.env.E2E_LOG ?? "silent" }),
    });
    try {
      const health = async () => (await fetch(new URL("/healthz", app.url))).text();
      let text = await health();
      for (let i = 0; i < 200 && !text.includes("sweep:"); i++) {
        await new Promise((r) => setTimeout(r, 5));
        text = await health();
      }
      const m = /^degraded\nsweep: the last sweep failed \((.*)\); the next runs at (\S+Z)$/m.exec(text);
      expect(m, text).not.toBeNull();
      expect(m?.[1]).toContain("rate limit");
      // at the window's end on GitHub's clock (plus a second), not after the (absent) interval
      const next = Date.parse(m?.[2] ?? "");
      expect(next).toBeGreaterThan(clock + 55_000);
      expect(next).toBeLessThanOrEqual(clock + 62_000);
    } finally {
      await app.close();
      await forge.stop();
    }
  }, 60_000);
});
