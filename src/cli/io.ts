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
