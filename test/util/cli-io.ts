import type { CliIO } from "../../src/cli/io.js";

/**
 * A CLI IO that records what a command prints, as the tests run the CLI in-process: no terminal, no
 * environment and the test's working directory unless `over` says otherwise.
 */
export function captureIO(over: Partial<CliIO> = {}): CliIO & { out(): string; err(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    cwd: process.cwd(),
    env: {},
    isTTY: false,
    ...over,
    out: () => out.join(""),
    err: () => err.join(""),
  };
}
