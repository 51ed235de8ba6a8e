import { isAbsolute, resolve } from "node:path";
import type { ResourceList } from "../types.js";
import { FunctionError } from "../types.js";
import { FunctionExitError, FunctionStartError } from "./errors.js";
import { runProcess } from "./process.js";
import { CommandLineError, splitCommandLine } from "./shlex.js";
import type { FunctionRunner, FunctionSpec, RunOptions, RunOutput } from "./types.js";
import { readResourceList, writeResourceList } from "./wire.js";

/**
 * Runs `exec:` functions: an executable that reads a ResourceList on stdin and writes one on stdout
 * (kpt's exec contract). A non-zero exit fails the function; its stderr is shown.
 */
export class ExecRunner implements FunctionRunner {
  readonly kind = "exec";

  /** @param baseDir where relative `exec:` paths are resolved from and the program runs (kpt: its working directory) */
  constructor(private readonly baseDir: string) {}

  async run(fn: FunctionSpec, input: ResourceList, options: RunOptions): Promise<RunOutput> {
    if (!fn.exec) throw new FunctionError("exec runner called without an exec path");
    const [command = "", ...args] = execCommandLine(fn.exec);
    // As kpt (Go's exec.Command): a bare name is looked up on PATH, a path is taken as it is,
    // relative to the directory the function runs in.
    const path = !command.includes("/") || isAbsolute(command) ? command : resolve(this.baseDir, command);
    const stdin = writeResourceList(input);
    let outcome: Awaited<ReturnType<typeof runProcess>>;
    try {
      outcome = await runProcess(fn.exec, path, args, stdin, options, this.baseDir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && !command.includes("/")) {
        throw new FunctionStartError(
          `unexpected function error: exec: "${command}": executable file not found in $PATH`,
        );
      }
      if (code === "ENOENT" || code === "EACCES") {
        const why = code === "ENOENT" ? "no such file or directory" : "permission denied";
        throw new FunctionStartError(`unexpected function error: fork/exec ${command}: ${why}`);
      }
      throw e;
    }
    return processResult(fn.exec, outcome);
  }
}

/** The words of an `exec:` command line (program, then its arguments), split as kpt splits them. */
export function execCommandLine(exec: string): string[] {
  try {
    return splitCommandLine(exec);
  } catch (e) {
    if (e instanceof CommandLineError) {
      throw new FunctionError(`exec command "${exec}" must be valid: ${e.message}`);
    }
    throw e;
  }
}

/** Turns a function process' outcome into its output list, or the error kpt reports for it. */
export function processResult(
  name: string,
  outcome: { stdout: string; stderr: string; exitCode: number },
): RunOutput {
  let output: ResourceList | undefined;
  let parseError: Error | undefined;
  if (outcome.stdout.trim() !== "") {
    try {
      output = readResourceList(outcome.stdout, `output of ${name}`);
    } catch (e) {
      parseError = e as Error;
    }
  }
  if (outcome.exitCode !== 0) {
    throw new FunctionExitError(
      `function "${name}" failed with exit code ${outcome.exitCode}`,
      outcome.exitCode,
      outcome.stderr,
      output?.results ?? [],
    );
  }
  if (parseError)
    throw new FunctionError(`function "${name}" wrote an invalid ResourceList: ${parseError.message}`);
  const result: RunOutput = output ?? { items: [], results: [] };
  // kpt shows what a function that passed wrote to stderr, and records it in results.yaml.
  if (outcome.stderr !== "") result.stderr = outcome.stderr;
  return result;
}
