import { universe } from "./builtins.js";
import { call } from "./call.js";
import { compileModule } from "./compile.js";
import { StarlarkEvalError } from "./errors.js";
import { parseFile } from "./parser.js";
import { resolveFile } from "./resolve.js";
import { Thread, type ThreadOptions } from "./thread.js";
import type { Value } from "./values/core.js";

export interface ExecResult {
  /** The module's globals after execution (frozen, as Go starlark's ExecFile leaves them). */
  globals: Map<string, Value>;
  thread: Thread;
}

/**
 * Parses, resolves and runs a Starlark file, as Go starlark's ExecFile does. Throws StarlarkSyntaxError for
 * scan, parse and resolve errors and StarlarkEvalError for run-time errors (including exceeded limits).
 */
export function execFile(src: string, predeclared: Map<string, Value>, opts: ThreadOptions = {}): ExecResult {
  const name = opts.name ?? "<script>";
  const thread = new Thread(opts);
  thread.caller = call;
  const univ = universe();
  if (!thread.dialect.set) univ.delete("set");
  const file = parseFile(name, src);
  resolveFile(
    file,
    (n) => predeclared.has(n),
    (n) => univ.has(n) || n === "set",
    thread.dialect,
  );
  const mod = compileModule(thread, file, predeclared, univ);
  try {
    mod.run();
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new StarlarkEvalError("maximum recursion depth exceeded");
    }
    if (e instanceof StarlarkEvalError) {
      e.place({ name: "<toplevel>", file: name, pos: thread.pos ?? { line: 1, col: 1 } });
    }
    throw e;
  }
  const globals = new Map<string, Value>();
  file.globals.forEach((b, i) => {
    const v = mod.globals[i];
    if (v !== undefined) {
      if (typeof v === "object") v.freeze();
      globals.set(b.name, v);
    }
  });
  return { globals, thread };
}
