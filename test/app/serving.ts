import { expect } from "vitest";
import { serveCommand } from "../../src/cli/serve.js";
import { captureIO } from "../util/cli-io.js";

/**
 * `porchlight serve ARGS` in-process as npm start runs it (a free port, no logs; `env` over that) until
 * it has printed `ready`: what it printed by then, its IO for what it prints after, and its stop (SIGTERM,
 * then exit 0).
 */
export async function startServe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  ready = "kubectl get packagerevisions",
) {
  const io = captureIO({ env: { PORT: "0", LOG_LEVEL: "silent", ...env } });
  const running = serveCommand(args, io);
  while (!io.out().includes(ready)) await new Promise((resolve) => setImmediate(resolve));
  return {
    out: io.out(),
    io,
    async stop() {
      process.emit("SIGTERM");
      expect(await running).toBe(0);
    },
  };
}
