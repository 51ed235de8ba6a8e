import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { WEBHOOK_MAX_BYTES_ENV, WEBHOOK_MAX_PENDING_BYTES_ENV } from "../../src/app/webhook/edge.js";
import { serveCommand } from "../../src/cli/serve.js";
import { LIMIT_ENV } from "../../src/config/limits.js";

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
    ["PORCHLIGHT_CONCURRENCY", "0", 'must be a whole number of jobs above 0 (default 4), not "0"'],
  ])("refuses %s=%s before starting, saying what it takes", async (name, value, message) => {
    await expect(serveCommand([], io({ [name]: value, PORT: "0" }))).rejects.toThrow(
      `porchlight serve: ${name} ${message}`,
    );
  });
});

describe("porchlight serve --help", () => {
  it("lists every environment variable serve reads, and its flags", async () => {
    let out = "";
    const code = await serveCommand(["--help"], {
      ...io({}),
      stdout: (t: string) => {
        out += t;
      },
    });
    expect(code).toBe(0);
    // What serve and the forge it starts read from the environment, found in their source, so a new
    // variable without a line in --help fails here.
    const sources = ["src/cli/serve.ts", "src/cli/serve-forge.ts"].map((f) => readFileSync(f, "utf8"));
    const read = new Set(sources.flatMap((s) => [...s.matchAll(/env\.([A-Z][A-Z_]+)/g)].map((m) => m[1]!)));
    for (const s of sources) for (const m of s.matchAll(/FromEnv\(io\.env, "([A-Z_]+)"/g)) read.add(m[1]!);
    const all = [
      ...read,
      ...Object.values(LIMIT_ENV),
      WEBHOOK_MAX_BYTES_ENV,
      WEBHOOK_MAX_PENDING_BYTES_ENV,
      "PORCHLIGHT_ALLOW_EXEC",
      "PORCHLIGHT_ALLOW_CONTAINER",
    ];
    expect(all).toContain("FORGE_PORT");
    expect(all).toContain("PORCHLIGHT_RECONCILE_INTERVAL_MS");
    expect(out).toContain("PORCHLIGHT_CONCURRENCY");
    for (const name of all) expect(out, name).toContain(name);
    for (const flag of ["--data DIR", "--demo", "--help"]) expect(out).toContain(flag);
  });
});
