import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seed, startForge } from "@porchlight/forge";
import { describe, expect, it } from "vitest";
import { apiCommand } from "../../src/cli/api.js";
import { serveCommand } from "../../src/cli/serve.js";
import { servePorchApiOnForge } from "../../src/cli/serve-porch-api.js";
import { captureIO } from "../util/cli-io.js";
import { useTempDirs } from "../util/temp-dirs.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Until `done` holds (polled each turn of the event loop; the test's timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Files holding a GitHub token or a private key are their owner's alone (0600), also where the file
 * was there before with a looser mode: `writeFile`'s mode applies only to a file it creates.
 */
describe("the command line's secrets on disk", () => {
  const tmp = useTempDirs("porchlight-private-");

  it("porchlight api --kubeconfig writes the token 0600 over a kubeconfig that was 0644", async () => {
    const kubeconfig = join(tmp(), "config");
    writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\n", { mode: 0o644 });
    expect(modeOf(kubeconfig)).toBe(0o644);
    const io = captureIO({ env: { GH_TOKEN: "ghp_secret" } });
    const listening = process.listenerCount("SIGTERM");
    const running = apiCommand(
      ["--port", "0", "--api-url", "http://127.0.0.1:9/api/v3", "--kubeconfig", kubeconfig],
      io,
    );
    // the kubeconfig is written before the command waits for a signal
    await until(() => process.listenerCount("SIGTERM") > listening);
    expect(io.out()).toContain(`export KUBECONFIG=${kubeconfig}`);
    expect(modeOf(kubeconfig)).toBe(0o600);
    process.emit("SIGTERM");
    expect(await running).toBe(0);
  });

  it("serve's API writes each user's kubeconfig and its TLS key 0600 in the forge's data folder", async () => {
    const data = tmp();
    const forge = await startForge({ dataDir: data });
    try {
      const world = await seed(forge);
      const login = world.users[0]?.login ?? "";
      const kubeconfig = join(data, `kubeconfig-${login}.yaml`);
      // what an earlier serve (or a user) left, readable by others
      writeFileSync(kubeconfig, "old\n", { mode: 0o644 });
      writeFileSync(join(data, "porch-api.key"), "old\n", { mode: 0o644 });
      const api = await servePorchApiOnForge({}, forge, world);
      try {
        expect(modeOf(kubeconfig)).toBe(0o600);
        expect(modeOf(join(data, "porch-api.key"))).toBe(0o600);
      } finally {
        await api.close();
      }
    } finally {
      await forge.stop();
    }
  });

  it("serve in a data folder made beforehand 0755: repos/ (private repositories) is 0700, serve.json 0600", async () => {
    const data = tmp();
    chmodSync(data, 0o755);
    mkdirSync(join(data, "repos"));
    chmodSync(join(data, "repos"), 0o755);
    writeFileSync(join(data, "serve.json"), "{}\n", { mode: 0o644 });
    const io = captureIO({ env: { PORT: "0", LOG_LEVEL: "silent" } });
    const running = serveCommand(["--data", data], io);
    await until(() => io.out().includes("Try it:"));
    try {
      expect(modeOf(join(data, "repos"))).toBe(0o700);
      expect(modeOf(join(data, "serve.json"))).toBe(0o600);
      expect(modeOf(join(data, "forge.json"))).toBe(0o600);
    } finally {
      process.emit("SIGTERM");
      expect(await running).toBe(0);
    }
  });
});
