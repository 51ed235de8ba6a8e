import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { StarlarkEvalError } from "../../../src/fn/starlark/errors.js";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { runStarlark } from "../../../src/fn/starlark/kpt.js";
import { FunctionError } from "../../../src/fn/types.js";
import { KPT_DIALECT } from "./helpers.js";

function failure(src: string): StarlarkEvalError {
  try {
    execFile(src, new Map(), { name: "t.star", dialect: KPT_DIALECT });
  } catch (e) {
    if (e instanceof StarlarkEvalError) return e;
    throw e;
  }
  throw new Error("expected a run-time error");
}

type Case = [name: string, src: string, backtrace: string];

// Go's EvalError.Backtrace(): frames at the call's '(' and the failing operation (operator, '[', '.').
const cases: Case[] = [
  [
    "index in nested calls",
    'def f(x):\n  return x["a"]\ndef g():\n  return f({})\ng()\n',
    'Traceback (most recent call last):\n  t.star:5:2: in <toplevel>\n  t.star:4:11: in g\n  t.star:2:11: in f\nError: key "a" not in dict',
  ],
  [
    "failing builtin is named",
    'x = 1\nfail("boom", x)\n',
    "Traceback (most recent call last):\n  t.star:2:5: in <toplevel>\nError in fail: fail: boom 1",
  ],
  [
    "failing method is named",
    "d = {}\nd.pop(1)\n",
    "Traceback (most recent call last):\n  t.star:2:6: in <toplevel>\nError in pop: pop: missing key",
  ],
  [
    "binary operator position",
    'x = 1\ny = x + "a"\n',
    "Traceback (most recent call last):\n  t.star:2:7: in <toplevel>\nError: unknown binary op: int + string",
  ],
  [
    "unbound local at the identifier",
    "def f():\n  print(y)\n  y = 1\nf()\n",
    "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:2:9: in f\nError: local variable y referenced before assignment",
  ],
  [
    "attribute at the dot",
    "x = 1\ny = x.nope\n",
    "Traceback (most recent call last):\n  t.star:2:6: in <toplevel>\nError: int has no .nope field or method",
  ],
  [
    "argument binding in the callee",
    "def f(a):\n  pass\nf(1, 2)\n",
    "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f accepts 1 positional argument (2 given)",
  ],
  [
    "for over a non-iterable at the for",
    "def f():\n  for c in 'ab':\n    pass\nf()\n",
    "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:2:3: in f\nError: string value is not iterable",
  ],
  [
    "lambda frames",
    "f = lambda x: x // 0\nf(1)\n",
    "Traceback (most recent call last):\n  t.star:2:2: in <toplevel>\n  t.star:1:17: in lambda\nError: floored division by zero",
  ],
];

describe("run-time errors carry Go's backtrace", () => {
  it.each(cases)("%s", (_name, src, want) => {
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
