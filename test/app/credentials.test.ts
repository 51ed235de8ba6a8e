import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startForge } from "@porchlight/forge";
import { describe, expect, it } from "vitest";
import { startAppServer } from "../../src/app/server.js";
import { appOnForge } from "../e2e/harness.js";
import { capturedLog } from "./webhook/http.js";

describe("the app's credentials, checked at start", () => {
  it("an APP_ID GitHub does not know stops the start in one line naming it, no server left listening", async () => {
    const forge = await startForge();
    try {
      const creds = forge.createApp({ name: "porchlight", owner: "acme" });
      const wrong = Number(creds.appId) + 1000;
      const { log } = capturedLog();
      const start = startAppServer({
        appId: wrong,
        privateKey: creds.privateKeyPem,
        webhookSecret: creds.webhookSecret,
        baseUrl: forge.apiUrl,
        port: 0,
        writeIntervalMs: 0,
        log,
      });
      await expect(start).rejects.toThrow(
        new RegExp(
          `^GitHub refused the app's credentials \\(APP_ID ${wrong} and its PRIVATE_KEY\\): .*; check both against the app's settings page`,
        ),
      );
    } finally {
      await forge.stop();
    }
  });

  it("the right ones start the app, and its cache folder of its own making goes when it stops", async () => {
    const forge = await startForge();
    const creds = forge.createApp({ name: "porchlight", owner: "acme" });
    const { log } = capturedLog();
    // no PORCHLIGHT_CACHE_DIR: the app makes a folder in the temporary directory
    const tmp = mkdtempSync(join(tmpdir(), "porchlight-tmp-"));
    const saved = { TMPDIR: process.env.TMPDIR, PORCHLIGHT_CACHE_DIR: process.env.PORCHLIGHT_CACHE_DIR };
    process.env.TMPDIR = tmp;
    delete process.env.PORCHLIGHT_CACHE_DIR;
    try {
      const app = await startAppServer({
        ...appOnForge(forge, creds),
        log,
      });
      expect((await fetch(new URL("/healthz", app.url))).status).toBe(200);
      expect(readdirSync(tmp).filter((f) => f.startsWith("porchlight-cache-"))).toHaveLength(1);
      await app.close();
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(tmp, { recursive: true, force: true });
      await forge.stop();
    }
  });
});
