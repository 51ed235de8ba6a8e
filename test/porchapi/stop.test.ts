import { spawn } from "node:child_process";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { FROM_SOURCE } from "../e2e/serve-child.js";

/**
 * `porchlight api` stopped while busy: SIGTERM cancels the requests in flight (their calls to GitHub
 * end with them) and the process ends within PORCHLIGHT_API_STOP_MS, even where GitHub never answers.
 */
describe("Porch's API stops within its bound", () => {
  let w: RpkgWorld;
  beforeAll(async () => {
    w = await rpkgWorld();
  }, 60_000);
  afterAll(() => w?.stop());

  it("ends on SIGTERM while its requests wait on a GitHub that does not answer", async () => {
    const child = spawn(
      process.execPath,
      [...FROM_SOURCE, "test/e2e/app-process.ts", "api", "--port", "0", "--api-url", w.forge.apiUrl],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: w.tmp,
          PORCHLIGHT_API_HTTP: "loopback",
          PORCHLIGHT_API_STOP_MS: "1000",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", () => {
          const m = /Porch's API at (\S+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        exited.then(() => reject(new Error(`porchlight api exited before listening:\n${out}`)));
      });
      const held = w.forge.faults.add({ route: "/repos/{owner}/{repo}", method: "GET", hang: true });
      for (let i = 0; i < 3; i++)
        request(`${url}/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions`, {
          headers: { authorization: `Bearer ${w.alice}` },
        })
          .on("error", () => {})
          .end();
      const end = Date.now() + 30_000;
      // the three ask GitHub one question (the caller's access to acme/.porchlight, shared), held there
      while (w.forge.faults.holding(held) < 1) {
        if (Date.now() > end) throw new Error(`the requests never reached the forge:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const asked = Date.now();
      child.kill("SIGTERM");
      // the bound (1 s) and the time node takes to end, with room for a loaded machine
      const code = await Promise.race([
        exited,
        new Promise((r) => setTimeout(() => r("still running"), 10_000)),
      ]);
      expect(code).toBe(0);
      expect(Date.now() - asked).toBeLessThan(10_000);
      // and the forge was let go of: nothing of the stopped process is held
      expect(w.forge.faults.holding(held)).toBe(0);
      w.forge.faults.remove(held);
    } finally {
      child.kill("SIGKILL");
    }
  }, 90_000);
});
