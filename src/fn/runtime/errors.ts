import { FunctionError, type FunctionResult } from "../types.js";

/** A function that ran as a process and failed: kpt shows its stderr and exit code. */
export class FunctionExitError extends FunctionError {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly stderr: string,
    results: FunctionResult[] = [],
  ) {
    super(message, results);
    this.name = "FunctionExitError";
  }
}

/** A function process that could not be started (kpt records it with exit code 1 and prints the error). */
export class FunctionStartError extends FunctionError {
  constructor(message: string) {
    super(message);
    this.name = "FunctionStartError";
  }
}
