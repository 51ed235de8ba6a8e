import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "porchlight.js");

/** Runs the installed command line to its end: exit code and what it wrote to stderr. */
function porchlight(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a port another program holds", () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it("serve says so in one line naming PORT, and ends (the forge it started is stopped)", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
    for (const name of ["APP_ID", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "PORCHLIGHT_DATA"])
      delete env[name];
    const { code, stderr } = await porchlight(["serve"], env);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `porchlight: the app cannot listen on 127.0.0.1:${port}: another program (another porchlight?) listens there; set PORT to a free port\n`,
    );
  });

  it("forge says so in one line naming --port and FORGE_PORT", async () => {
    const data = mkdtempSync(join(tmpdir(), "porchlight-busy-"));
    const { code, stderr } = await porchlight(["forge", "--port", String(port), "--data", data], process.env);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `porchlight: the forge cannot listen on 127.0.0.1:${port}: another program (another forge or porchlight serve?) listens there; give it a free port (--port for porchlight forge, FORGE_PORT for porchlight serve)\n`,
    );
  });
});
