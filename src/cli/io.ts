import { armWatchdog } from "./watchdog.js";

/** What a CLI command may touch of its process: passed in, so tests run commands in-process. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input, read whole (for `-` arguments and piped ResourceLists). */
  readStdin: () => Promise<string>;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean;
  /**
   * Bounds a render in time (PORCHLIGHT_RENDER_TIMEOUT_MS): past it the process ends with a message
   * (watchdog.ts); returns the disarm. Only the real process has it: a test's CLI runs in the test's.
   */
  watchdog?: (command: string) => () => void;
}

export type CliCommand = (args: string[], io: CliIO) => Promise<number>;

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    cwd: process.cwd(),
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
    watchdog: (command) => armWatchdog(process.env, command),
  };
}

/** An error whose message is meant for the user as it is; the CLI prints it and exits with `exitCode`. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UsageError";
  }
}
