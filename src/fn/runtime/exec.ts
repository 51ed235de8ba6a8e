import { isAbsolute, resolve } from "node:path";
import type { ResourceList } from "../types.js";
import { FunctionError } from "../types.js";
import { FunctionExitError, FunctionStartError } from "./errors.js";
import { runProcess } from "./process.js";
import type { FunctionRunner, FunctionSpec, RunOptions } from "./types.js";
import { readResourceList, writeResourceList } from "./wire.js";

/**
 * Runs `exec:` functions: an executable that reads a ResourceList on stdin and writes one on stdout
 * (kpt's exec contract). A non-zero exit fails the function; its stderr is shown.
 */
export class ExecRunner implements FunctionRunner {
  readonly kind = "exec";

  /** @param baseDir where relative `exec:` paths are resolved from and the program runs (kpt: its working directory) */
  constructor(private readonly baseDir: string) {}

  async run(fn: FunctionSpec, input: ResourceList, options: RunOptions): Promise<ResourceList> {
    if (!fn.exec) throw new FunctionError("exec runner called without an exec path");
    const [command = "", ...args] = fn.exec.trim().split(/\s+/);
    const path = isAbsolute(command) ? command : resolve(this.baseDir, command);
    const stdin = writeResourceList(input);
    let outcome: Awaited<ReturnType<typeof runProcess>>;
    try {
      outcome = await runProcess(fn.exec, path, args, stdin, options, this.baseDir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "EACCES") {
        const why = code === "ENOENT" ? "no such file or directory" : "permission denied";
        throw new FunctionStartError(`unexpected function error: fork/exec ${command}: ${why}`);
      }
      throw e;
    }
    return processResult(fn.exec, outcome);
  }
}

/** Turns a function process' outcome into its output list, or the error kpt reports for it. */
export function processResult(
  name: string,
  outcome: { stdout: string; stderr: string; exitCode: number },
): ResourceList {
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
  return output ?? { items: [], results: [] };
}
