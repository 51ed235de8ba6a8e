import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { PORCHLIGHT_FOLDER } from "../../src/cli/serve-forge.js";
import { captureIO } from "../util/cli-io.js";
import { startServe } from "./serving.js";

describe("porchlight serve without credentials", () => {
  it("runs the app against a seeded embedded forge, says what to do next, and stops on SIGTERM", async () => {
    const { io, stop } = await startServe([], {}, "Try it:");
    const appUrl = /app: {3}(\S+)/.exec(io.out())?.[1];
    expect((await fetch(`${appUrl}/healthz`)).status).toBe(200);
    expect(io.out()).toContain("git clone http://");
    // The steps it prints are the README's, with this forge's port and these users' tokens.
    const pat = (login: string) =>
      new RegExp(`^  ${login}\\t\\w+\\t(\\S+)$`, "m").exec(io.out())?.[1] as string;
    const steps = io
      .out()
      .slice(io.out().indexOf("Try it"), io.out().indexOf("Users ("))
      .split("\n")
      .slice(1)
      .filter((l) => l.trim() !== "")
      .map((l) =>
        l
          .trim()
          .replaceAll(pat("maintainer"), "<maintainer token>")
          .replaceAll(pat("reviewer"), "<token>")
          .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
          .replace(PORCHLIGHT_FOLDER, "<porchlight folder>"),
      );
    expect(steps.length).toBe(9);
    // npx finds porchlight only in its own folder (elsewhere it asks the npm registry for the name).
    expect(existsSync(join(PORCHLIGHT_FOLDER, "bin", "porchlight.js"))).toBe(true);
    const readme = readFileSync("README.md", "utf8");
    for (const step of steps) expect(readme).toContain(step);
    await stop();
    expect(io.out()).toContain("shutting down");
  });
});

/** `porchlight serve ARGS` with `env`, through main, for a start it refuses: its exit code and what it printed. */
async function refusedServe(env: Record<string, string>, args: string[] = []) {
  const io = captureIO({ env: { PORT: "0", LOG_LEVEL: "silent", ...env } });
  const code = await main(["serve", ...args], io);
  return { code, err: io.err(), out: io.out() };
}

describe("porchlight serve with some of the app's credentials", () => {
  it.each([
    [{ APP_ID: "1", PRIVATE_KEY: "pem" }, "APP_ID and PRIVATE_KEY are set but WEBHOOK_SECRET is not"],
    [
      { APP_ID: "1", WEBHOOK_SECRET: "s" },
      "APP_ID and WEBHOOK_SECRET are set but PRIVATE_KEY (or PRIVATE_KEY_PATH) is not",
    ],
    [
      { PRIVATE_KEY_PATH: "/k.pem", WEBHOOK_SECRET: "s" },
      "PRIVATE_KEY_PATH and WEBHOOK_SECRET are set but APP_ID is not",
    ],
    [
      { WEBHOOK_SECRET: "s" },
      "WEBHOOK_SECRET is set but APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) are not",
    ],
    [
      { APP_ID: "1", PRIVATE_KEY: "pem", WEBHOOK_SECRET: "" },
      "APP_ID and PRIVATE_KEY are set but WEBHOOK_SECRET is not",
    ],
  ])("refuses to start with %o, naming what is missing, and serves no demo forge", async (env, message) => {
    const r = await refusedServe(env);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`porchlight serve: ${message}: set`);
    expect(r.out).not.toContain("Try it:");
  });

  it("refuses an unreadable PRIVATE_KEY_PATH, naming it", async () => {
    const r = await refusedServe({
      APP_ID: "1",
      PRIVATE_KEY_PATH: "/nonexistent/key.pem",
      WEBHOOK_SECRET: "s",
    });
    expect(r.code).toBe(2);
    expect(r.err).toBe("porchlight serve: cannot read PRIVATE_KEY_PATH=/nonexistent/key.pem: ENOENT\n");
  });

  it("serves the embedded forge with --demo, saying the credentials are ignored", async () => {
    const { io, stop } = await startServe(["--demo"], { APP_ID: "1" }, "Try it:");
    expect(io.err()).toContain("--demo: the GitHub App credentials in the environment are ignored");
    await stop();
  });
});

describe("porchlight serve with a bad setting", () => {
  it.each([
    [
      { PORCHLIGHT_MAX_PACKAGE_BYTES: "10MB" },
      "porchlight serve: PORCHLIGHT_MAX_PACKAGE_BYTES=10MB: must be a whole number of bytes of at least 1; unset it for the default 8388608\n",
    ],
    [
      { PORCHLIGHT_EGRESS_ALLOW: "127.0.0.1:5000, http://10.0.0.1/" },
      'porchlight serve: PORCHLIGHT_EGRESS_ALLOW: "http://10.0.0.1/" is neither an address, a CIDR range nor a host name\n',
    ],
  ])("refuses to start on %o with one line naming the variable and what it takes", async (env, line) => {
    expect(await refusedServe(env)).toMatchObject({ code: 2, err: line });
  });
});
