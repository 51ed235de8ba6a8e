import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../../packages/forge/test/helpers.js";

/**
 * `porchlight serve` as an operator starts it (the built CLI, a process of its own): each credential
 * and setting is checked before anything starts, and a bad one ends the start with one line on stderr
 * naming the variable, and a non-zero exit — no stack trace, no server that starts and then fails.
 */
function serve(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["bin/porchlight.js", "serve"],
      // a fail-safe for a start that is not refused (the test then fails on its exit code), not a wait
      { env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env }, timeout: 60_000 },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stderr, stdout }),
    );
  });
}

const GOOD = {
  APP_ID: "12",
  PRIVATE_KEY: TEST_KEY,
  WEBHOOK_SECRET: "s3cret",
  PORT: "0",
  LOG_LEVEL: "silent",
};
const keyFile = join(mkdtempSync(join(tmpdir(), "porchlight-key-")), "app.pem");
writeFileSync(keyFile, "-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----\n");

describe("porchlight serve checks its environment before starting", () => {
  it.each([
    ["APP_ID", { APP_ID: "abc" }, 'APP_ID="abc": must be the GitHub App\'s numeric id'],
    ["PRIVATE_KEY", { PRIVATE_KEY: "garbage" }, "PRIVATE_KEY: must hold the GitHub App's private key"],
    [
      "PRIVATE_KEY_PATH",
      { PRIVATE_KEY: "", PRIVATE_KEY_PATH: keyFile },
      `PRIVATE_KEY_PATH="${keyFile}": must name the GitHub App's private key file`,
    ],
    ["PORT", { PORT: "http" }, 'PORT="http": must be a port number'],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }, 'LOG_LEVEL="loud": must be one of fatal, error, warn, info'],
    ["GHE_PROTOCOL", { GHE_PROTOCOL: "ftp", GHE_HOST: "ghe.example" }, 'GHE_PROTOCOL="ftp": must be https'],
    ["GHE_HOST", { GHE_HOST: "https://ghe.example/" }, 'GHE_HOST="https://ghe.example/": must be the GitHub'],
    [
      "REDIS_URL",
      { REDIS_URL: "localhost:6379" },
      'REDIS_URL="localhost:6379": must be a redis:// or rediss:// URL',
    ],
    [
      "PORCHLIGHT_CONCURRENCY",
      { PORCHLIGHT_CONCURRENCY: "many" },
      "PORCHLIGHT_CONCURRENCY must be a whole number",
    ],
  ])(
    "a bad %s: one line naming it, exit code 2",
    async (_, bad, message) => {
      const { code, stderr, stdout } = await serve({ ...GOOD, ...bad });
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^porchlight serve: [^\n]+\n$/);
      expect(stderr).toContain(message);
      expect(stderr).not.toContain("garbage");
      expect(code).toBe(2);
    },
    70_000,
  );
});
