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

/** The file name of builtin frames, as Go reports them. */
export const BUILTIN_FILE = "<builtin>";

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
  /** Outermost first, as Go's EvalError.CallStack; the last frame is where the error happened. */
  callStack: CallFrame[] = [];
  /** Whether the innermost frame (the failing operation, or the builtin that failed) is recorded. */
  placed = false;
  constructor(message: string) {
    super(message);
    this.name = "StarlarkEvalError";
  }

  /** Go's EvalError.Backtrace(): a failing builtin is named after "Error in" rather than listed. */
  backtrace(): string {
    let stack = this.callStack;
    let suffix = "";
    const last = stack[stack.length - 1];
    if (last && last.file === BUILTIN_FILE) {
      suffix = ` in ${last.name}`;
      stack = stack.slice(0, -1);
    }
    const lines = stack.length > 0 ? ["Traceback (most recent call last):"] : [];
    for (const f of stack) lines.push(`  ${f.file}:${f.pos.line}:${f.pos.col}: in ${f.name}`);
    lines.push(`Error${suffix}: ${this.message}`);
    return lines.join("\n");
  }

  /** The position of the failing operation in the script (the innermost Starlark frame). */
  get position(): CallFrame | undefined {
    return this.callStack.findLast((f) => f.file !== BUILTIN_FILE);
  }

  /** Records the innermost frame once: the first frame boundary the error crosses. */
  place(frame: CallFrame): void {
    if (this.placed) return;
    this.callStack.unshift(frame);
    this.placed = true;
  }
}

/** Shorthand for throwing a run-time error from value code; the message is built from byte strings. */
export function fail(message: string): never {
  throw new StarlarkEvalError(fromBytes(message));
}
