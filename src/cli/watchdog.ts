import { Worker } from "node:worker_threads";
import { UsageError } from "./io.js";

/** The bound a render (or eval, or source) of the command line has when PORCHLIGHT_RENDER_TIMEOUT_MS is unset. */
const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * What the watchdog thread runs: after `ms`, the message on stderr (written from that thread: the main
 * one may be stuck in a loop), then the process ends. A loop on the main thread cannot be stopped from
 * inside it, and nothing the process holds is half-written at that point — the command writes its
 * files after the render — so the process is killed.
 */
const WATCHDOG = `
const { workerData } = require("node:worker_threads");
setTimeout(() => {
  require("node:fs").writeSync(2, workerData.message);
  process.kill(process.pid, "SIGKILL");
}, workerData.ms);
`;

/**
 * Arms the command line's bound on a render: a thread of its own that ends the process past
 * PORCHLIGHT_RENDER_TIMEOUT_MS (the app's bound, default 300000), saying so. Returns the disarm.
 */
export function armWatchdog(env: NodeJS.ProcessEnv, command: string): () => void {
  const ms = timeoutFromEnv(env, command);
  const message = `${command}: stopped after ${ms / 1000} s: the render took longer than PORCHLIGHT_RENDER_TIMEOUT_MS allows (${ms}; default ${DEFAULT_TIMEOUT_MS}), so nothing was written. A function or a file of the package keeps it busy: run it on a part of the package to find which, or set PORCHLIGHT_RENDER_TIMEOUT_MS higher.\n`;
  const worker = new Worker(WATCHDOG, { eval: true, workerData: { ms, message } });
  worker.unref();
  return () => void worker.terminate();
}

function timeoutFromEnv(env: NodeJS.ProcessEnv, command: string): number {
  const text = env.PORCHLIGHT_RENDER_TIMEOUT_MS;
  if (text === undefined || text === "") return DEFAULT_TIMEOUT_MS;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError(
      `${command}: PORCHLIGHT_RENDER_TIMEOUT_MS must be a whole number of milliseconds above 0 (default ${DEFAULT_TIMEOUT_MS}), not "${text}"`,
    );
  return Number(text);
}
