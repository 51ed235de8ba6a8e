import type { Pos } from "./ast.js";
import { fromBytes } from "./utf8.js";

/** A scanner, parser or resolver error: prints as Go starlark does, `file:line:col: message`. */
export class StarlarkSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly pos: Pos,
    readonly msg: string,
  ) {
    super(`${file}:${pos.line}:${pos.col}: ${fromBytes(msg)}`);
    this.name = "StarlarkSyntaxError";
  }
}

/** One frame of a Starlark call stack. */
export interface CallFrame {
  name: string;
  file: string;
  pos: Pos;
}

/**
 * A run-time error. `message` is Go's `EvalError.Error()` (just the message, as kpt's starlark function
 * prints it); `backtrace()` adds the call stack as Go's `EvalError.Backtrace()` does.
 */
export class StarlarkEvalError extends Error {
  callStack: CallFrame[] = [];
  constructor(message: string) {
    super(message);
    this.name = "StarlarkEvalError";
  }

  backtrace(): string {
    const lines = ["Traceback (most recent call last):"];
    for (const f of this.callStack) lines.push(`  ${f.file}:${f.pos.line}:${f.pos.col}: in ${f.name}`);
    lines.push(`Error: ${this.message}`);
    return lines.join("\n");
  }
}

/** Shorthand for throwing a run-time error from value code; the message is built from byte strings. */
export function fail(message: string): never {
  throw new StarlarkEvalError(fromBytes(message));
}
