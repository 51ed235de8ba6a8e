import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { StarlarkEvalError } from "../../../src/fn/starlark/errors.js";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { runStarlark } from "../../../src/fn/starlark/kpt.js";
import { FunctionError } from "../../../src/fn/types.js";
import { KPT_DIALECT, starlarkCases } from "./helpers.js";

function failure(src: string): StarlarkEvalError {
  try {
    execFile(src, new Map(), { name: "t.star", dialect: KPT_DIALECT });
  } catch (e) {
    if (e instanceof StarlarkEvalError) return e;
    throw e;
  }
  throw new Error("expected a run-time error");
}

describe("run-time errors carry Go's backtrace", () => {
  it.each(starlarkCases("backtrace.yaml"))("%s", (_name, src, want) => {
    expect(failure(src).backtrace()).toBe(want);
  });

  it("exposes the failing position of the script", () => {
    const e = failure("def f(x):\n  return x[3]\nf([])\n");
    expect(e.position).toEqual({ name: "f", file: "t.star", pos: { line: 2, col: 11 } });
  });

  it("prints the message without backtrace in the kpt function result, as the catalog does", () => {
    const fc = parseDocument(
      'apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: bad\nsource: |\n  x = {}\n  y = x["missing"]\n',
    );
    try {
      runStarlark({ items: [], functionConfig: fc, results: [] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FunctionError);
      expect((e as FunctionError).message).toBe('key "missing" not in dict');
      const cause = (e as FunctionError).cause as StarlarkEvalError;
      expect(cause.backtrace()).toBe(
        'Traceback (most recent call last):\n  bad:2:6: in <toplevel>\nError: key "missing" not in dict',
      );
    }
  });
});
