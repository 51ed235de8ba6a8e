import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { serveCommand } from "../../src/cli/serve.js";

describe("porchlight serve without credentials", () => {
  it("runs the app against a seeded embedded forge, says what to do next, and stops on SIGTERM", async () => {
    let out = "";
    const running = serveCommand([], {
      stdout: (t) => {
        out += t;
      },
      stderr: () => {},
      readStdin: async () => "",
      cwd: process.cwd(),
      env: { PORT: "0", LOG_LEVEL: "silent" },
      isTTY: false,
    });
    while (!out.includes("Try it:")) await new Promise((resolve) => setImmediate(resolve));
    const appUrl = /app: {3}(\S+)/.exec(out)?.[1];
    expect((await fetch(`${appUrl}/healthz`)).status).toBe(200);
    expect(out).toContain("git clone http://");
    process.emit("SIGTERM");
    expect(await running).toBe(0);
    expect(out).toContain("shutting down");
  });
});

describe("porchlight serve with a bad limit setting", () => {
  it("refuses to start, naming the variable, the expected value and the default", async () => {
    let err = "";
    const code = await main(["serve"], {
      stdout: () => {},
      stderr: (t) => {
        err += t;
      },
      readStdin: async () => "",
      cwd: process.cwd(),
      env: { PORT: "0", LOG_LEVEL: "silent", PORCHLIGHT_MAX_PACKAGE_BYTES: "10MB" },
      isTTY: false,
    });
    expect(code).toBe(2);
    expect(err).toBe(
      "porchlight serve: PORCHLIGHT_MAX_PACKAGE_BYTES=10MB: must be a whole number of bytes of at least 1; unset it for the default 8388608\n",
    );
  });
});
