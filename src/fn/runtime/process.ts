import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FunctionError } from "../types.js";
import type { RunOptions } from "./types.js";

export interface ProcessOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Stderr kept for the user's message; more is dropped. */
const MAX_STDERR_BYTES = 1024 * 1024;

/**
 * The environment a function process gets: no token, key or secret of ours, only what a program
 * needs to start (PATH, a throwaway HOME, LANG).
 */
export function scrubbedEnv(home: string, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: home, LANG: from.LANG ?? "C.UTF-8" };
  if (from.PATH) env.PATH = from.PATH;
  return env;
}

/**
 * Runs a program with `input` on stdin and collects its output, within the run's time and output
 * limits (exceeding either kills the process and fails the run). It runs in `cwd` when that exists
 * (kpt runs exec functions in its own working directory), else in its throwaway HOME.
 */
export async function runProcess(
  name: string,
  command: string,
  args: readonly string[],
  input: string,
  options: RunOptions,
  cwd?: string,
): Promise<ProcessOutcome> {
  const home = await mkdtemp(join(tmpdir(), "porchlight-fn-"));
  const workDir = cwd !== undefined && existsSync(cwd) ? cwd : home;
  try {
    return await new Promise<ProcessOutcome>((resolve, reject) => {
      // Its own process group, so a time or size limit stops whatever the function started too.
      const child = spawn(command, args, {
        cwd: workDir,
        env: scrubbedEnv(home),
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let failure: Error | undefined;
      const stop = (e: Error): void => {
        if (failure) return;
        failure = e;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      };
      const timer = setTimeout(
        () =>
          stop(new FunctionError(`function "${name}" did not finish within ${options.timeoutMs / 1000}s`)),
        options.timeoutMs,
      );
      const onAbort = (): void => stop(new FunctionError(`function "${name}" was cancelled`));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      child.stdout.on("data", (b: Buffer) => {
        outBytes += b.length;
        if (outBytes > options.maxOutputBytes) {
          stop(
            new FunctionError(`function "${name}" wrote more than ${options.maxOutputBytes} bytes of output`),
          );
          return;
        }
        out.push(b);
      });
      child.stderr.on("data", (b: Buffer) => {
        if (errBytes < MAX_STDERR_BYTES) err.push(b);
        errBytes += b.length;
      });
      child.on("error", (e) => stop(e));
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (failure) {
          reject(failure);
          return;
        }
        resolve({
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8"),
          exitCode: code ?? (signal ? 128 : 1),
        });
      });
      child.stdin.on("error", () => {
        // The function may exit without reading all of its input; its exit code tells what happened.
      });
      child.stdin.end(input);
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
