import { execFile } from "../../../src/fn/starlark/interp.js";
import type { DialectOptions } from "../../../src/fn/starlark/resolve.js";
import { fromBytes } from "../../../src/fn/starlark/utf8.js";
import { repr } from "../../../src/fn/starlark/values/repr.js";

/** Runs `src` and returns repr(x), or the error message (syntax errors keep their file:line:col prefix). */
export function evalX(src: string, dialect: DialectOptions = {}): string {
  try {
    const { globals } = execFile(src, new Map(), { name: "t.star", dialect });
    const x = globals.get("x");
    return x === undefined ? "<no x>" : fromBytes(repr(x));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

export const KPT_DIALECT: DialectOptions = { set: true, recursion: true, globalReassign: true };
