import { describe, expect, it } from "vitest";
import { serveCommand } from "../../src/cli/serve.js";

const io = (env: Record<string, string>) => ({
  stdout: () => {},
  stderr: () => {},
  readStdin: async () => "",
  cwd: process.cwd(),
  env,
  isTTY: false,
});

describe("porchlight serve's webhook limits", () => {
  it.each([
    [
      "PORCHLIGHT_WEBHOOK_MAX_BYTES",
      "25MB",
      'must be a whole number of bytes above 0 (default 26214400), not "25MB"',
    ],
    [
      "PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES",
      "0",
      'must be a whole number of bytes above 0 (default 104857600), not "0"',
    ],
  ])("refuses %s=%s before starting, saying what it takes", async (name, value, message) => {
    await expect(serveCommand([], io({ [name]: value, PORT: "0" }))).rejects.toThrow(
      `porchlight serve: ${name} ${message}`,
    );
  });
});
