import { describe, expect, it } from "vitest";
import { StarlarkEvalError, StarlarkSyntaxError } from "../../../src/fn/starlark/errors.js";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { jsonModule } from "../../../src/fn/starlark/modules/json.js";
import type { DialectOptions } from "../../../src/fn/starlark/resolve.js";
import type { Value } from "../../../src/fn/starlark/values/core.js";
import { KPT_DIALECT } from "./helpers.js";

/**
 * Chunks of go.starlark.net's starlark/testdata/*.star that expect an error (`### "pattern"`): the error
 * text must match the pattern, and the error must be reported on the `###` line (for run-time errors,
 * the innermost script frame of the backtrace, as Go's test harness reads it).
 */
type Chunk = [file: string, src: string, pattern: RegExp, opts?: { dialect?: DialectOptions; line?: number }];

function load(module: string): Map<string, Value> {
  if (module === "encoding/json.star") return new Map([["json", jsonModule()]]);
  throw new StarlarkEvalError(`cannot load ${module}: not found`);
}

function errorOf(src: string, dialect: DialectOptions): { msg: string; line?: number } {
  try {
    execFile(src, new Map(), { name: "chunk.star", dialect, load });
  } catch (e) {
    if (e instanceof StarlarkEvalError) return { msg: e.message, line: e.position?.pos.line };
    if (e instanceof StarlarkSyntaxError) return { msg: e.msg, line: e.pos.line };
    throw e;
  }
  return { msg: "<no error>" };
}

const chunks: Chunk[] = [
  ["assign.star", "def f1():\n  (x,) = 1\nf1()\n", /got int in sequence assignment/, { line: 2 }],
  ["assign.star", "def f2():\n  a, b, c = 1, 2\nf2()\n", /too few values to unpack/, { line: 2 }],
  ["assign.star", "def f3():\n  a, b = 1, 2, 3\nf3()\n", /too many values to unpack/, { line: 2 }],
  ["assign.star", "def f():\n  x = {}\n  x[(1, 'abc', {})] = 1\nf()\n", /unhashable type: dict/, { line: 3 }],
  [
    "assign.star",
    "def f():\n   return g ### global variable g referenced before assignment\n\nf()\n\ng = 1\n",
    /global variable g referenced before assignment/,
    { line: 2 },
  ],
  [
    "assign.star",
    "def f():\n   def g():\n     return outer\n   outer = 1\n   g2 = g\nx = [1]\ndef h():\n   x += [4]\nh()\n",
    /local variable x referenced before assignment/,
    { line: 8 },
  ],
  [
    "assign.star",
    "z += 3 ### global variable z referenced before assignment\n",
    /global variable z referenced before assignment/,
    { line: 1 },
  ],
  [
    "assign.star",
    "x = [1, 2]\n_ = [x for _ in [3] for x in x]\n",
    /local variable x referenced before assignment/,
    { line: 2 },
  ],
  ["assign.star", "(a) += 5\n", /global variable a referenced before assignment/, { line: 1 }],
  ["assign.star", "1 = 2\n", /can't assign to literal/, { line: 1 }],
  ["assign.star", "f() = 2\n", /can't assign to callexpr/, { line: 1 }],
  ["assign.star", "() = 2\n", /can't assign to \(\)/, { line: 1 }],
  ["assign.star", "[] = 2\n", /can't assign to \[\]/, { line: 1 }],
  ["assign.star", "x, y += 1\n", /can't use tuple expression in augmented assignment/, { line: 1 }],
  ["control.star", "def f():\n  break\n", /break not in a loop/, { line: 2 }],
  ["control.star", "def f():\n  continue\n", /continue not in a loop/, { line: 2 }],
  ["control.star", "if True:\n  load('m.star', 'x')\n", /load statement within a conditional/, { line: 2 }],
  ["control.star", "for x in []:\n  load('m.star', 'x')\n", /load statement within a loop/, { line: 2 }],
  ["control.star", "def f():\n  load('m.star', 'x')\n", /load statement within a function/, { line: 2 }],
  ["control.star", "return 1\n", /return statement not within a function/, { line: 1 }],
  ["control.star", "if True:\n  pass\n", /if statement not within a function/, { dialect: {}, line: 1 }],
  ["control.star", "for x in []:\n  pass\n", /for loop not within a function/, { dialect: {}, line: 1 }],
  ["dict.star", "x = {'a': 1} + {'b': 2}\n", /unknown binary op: dict \+ dict/, { line: 1 }],
  ["dict.star", "x6 = {'a': 1}\nx6.pop('c')\n", /^pop: missing key$/, { line: 2 }],
  ["dict.star", "x7 = {}\nx7.popitem()\n", /popitem: empty dict/, { line: 2 }],
  [
    "dict.star",
    "_ = {\n    'one': 1,\n    ['two']: 2,\n    'three': 3,\n}\n",
    /unhashable type: list/,
    { line: 3 },
  ],
  [
    "dict.star",
    "_ = {\n    'one': 1,\n    'one': 1,\n    'three': 3,\n}\n",
    /duplicate key: "one"/,
    { line: 3 },
  ],
  [
    "dict.star",
    "_ = {\n    k: v\n    for k, v in [\n        ('one', 1),\n        (['two'], 2),\n    ]\n}\n",
    /unhashable type: list/,
    { line: 2 },
  ],
  ["dict.star", "x = dict({'b': 3}, a=4, **dict(a=5))\n", /dict: duplicate keyword arg: "a"/, { line: 1 }],
  ["dict.star", "x9 = {}\nx = x9['a']\n", /key "a" not in dict/, { line: 2 }],
  [
    "dict.star",
    "def f():\n  d = {1: 1, 2: 1}\n  for k in d:\n    d[2 * k] = d[k]\nf()\n",
    /insert.*during iteration/,
    { line: 4 },
  ],
  [
    "function.star",
    "def f(x):\n  return x\nf(1, 2)\n",
    /function f accepts 1 positional argument \(2 given\)/,
  ],
  ["function.star", "def f():\n  pass\nf(a=1)\n", /function f accepts no arguments \(1 given\)/],
  [
    "function.star",
    "def f(a, b=1):\n  pass\nf(1, 2, 3)\n",
    /function f accepts at most 2 positional arguments \(3 given\)/,
  ],
  ["function.star", "def f(a, b):\n  pass\nf()\n", /function f missing 2 arguments \(a, b\)/],
  ["function.star", "def f(a):\n  pass\nf(1, a=2)\n", /function f got multiple values for parameter "a"/],
  ["function.star", "def f(a):\n  pass\nf(b=2)\n", /function f got an unexpected keyword argument "b"/],
  [
    "function.star",
    "def f(*args, **kwargs):\n  pass\nf(x=1, **dict(x=2))\n",
    /function f got multiple values for parameter "x"/,
  ],
  [
    "function.star",
    "def fib(x):\n  return x if x < 2 else fib(x - 1)\nfib(3)\n",
    /function fib called recursively/,
    { dialect: {} },
  ],
  [
    "function.star",
    "def e():\n  x = 1\n  def f():\n    print(x)\n    x = 3\n  f()\ne()\n",
    /local variable x referenced before assignment/,
    { line: 4 },
  ],
  ["function.star", "x = min([], keg=1)\n", /min: unexpected keyword argument "keg" \(did you mean key\?\)/],
  ["int.star", "x = 1 // 0\n", /floored division by zero/, { line: 1 }],
  ["int.star", "x = 1 % 0\n", /integer modulo by zero/, { line: 1 }],
  ["int.star", "x = 2 << -1\n", /negative shift count/, { line: 1 }],
  ["int.star", "x = 1 << 512\n", /shift count too large/, { line: 1 }],
  ["int.star", "x = int('0x12')\n", /invalid literal with base 10/, { line: 1 }],
  ["int.star", "x = int('0123', 0)\n", /invalid literal.*base 0/, { line: 1 }],
  ["int.star", "x = int(3, base = 10)\n", /non-string with explicit base/],
  ["int.star", "x = int()\n", /missing argument/],
  ["float.star", "x = 1.0 / 0\n", /floating-point division by zero/, { line: 1 }],
  ["float.star", "x = 1.0 // 0.0\n", /floored division by zero/, { line: 1 }],
  ["float.star", "x = 1.0 % 0\n", /floating-point modulo by zero/, { line: 1 }],
  ["float.star", "x = int(float('nan'))\n", /cannot convert float NaN to integer/],
  ["float.star", "x = int(float('inf'))\n", /cannot convert float infinity to integer/],
  ["list.star", "abc = ['a', 'b', 'c']\nx = abc[-4]\n", /list index -4 out of range \[-3:2\]/, { line: 2 }],
  ["list.star", "x = [1, 2] + (3, 4)\n", /unknown binary op: list \+ tuple/, { line: 1 }],
  ["list.star", "x4 = [1, 2, 3, 4, 5]\nx4.pop(6)\n", /index 6 out of range \[-5:4\]/, { line: 2 }],
  ["list.star", "x = [3, 1, 4, 1].remove(42)\n", /remove: element not found/],
  ["list.star", "x = ['a'].index('d')\n", /value not in list/],
  ["list.star", "def f():\n  x = []\n  x += 1\nf()\n", /unknown binary op: list \+ int/, { line: 3 }],
  [
    "list.star",
    "def f():\n  l = [0, 1, 2]\n  for x in l:\n    l.append(3)\nf()\n",
    /append.*during iteration/,
    { line: 4 },
  ],
  [
    "list.star",
    "def f():\n  l = [0, 1, 2]\n  for x in l:\n    l[x] = 2 * x\nf()\n",
    /assign to element.* during iteration/,
    { line: 4 },
  ],
  ["misc.star", "x = None < False\n", /not impl/, { line: 1 }],
  ["misc.star", "x = [] < ''\n", /not impl/],
  ["misc.star", "cyclic = [1, 2, 3]\ncyclic[1] = cyclic\nx = cyclic == cyclic\n", /maximum recursion/],
  [
    "misc.star",
    "_ = {}.get(1, default=2) ### get: unexpected keyword arguments\n",
    /get: unexpected keyword arguments/,
    { line: 1 },
  ],
  ["misc.star", "x = 'a' + 'b' + 1 + 'c'\n", /unknown binary op: string \+ int/, { line: 1 }],
  ["set.star", "x = set(1)\n", /set: for parameter 1: got int, want iterable/],
  ["set.star", "x = set([1, 2, {}])\n", /unhashable type: dict/],
  ["set.star", "x = set([1]) + set([2])\n", /unknown binary op: set \+ set/, { line: 1 }],
  ["set.star", "x = set() | []\n", /unknown binary op: set \| list/, { line: 1 }],
  ["set.star", "x = set([1])\nx.remove(3)\n", /remove: missing key/, { line: 2 }],
  ["set.star", "x = set([1])\ny = x[0]\n", /unhandled.*operation/, { line: 2 }],
  ["string.star", "x = 1.0 * 'abc'\n", /unknown binary op: float \* string/, { line: 1 }],
  [
    "string.star",
    "def args(*args): return args\nargs(*'abc')\n",
    /must be iterable, not string/,
    { line: 2 },
  ],
  ["string.star", "x = zip('ab', 'cd')\n", /zip: argument #1 is not iterable: string/],
  ["string.star", "x = dict(['ab'])\n", /not iterable .*string/],
  ["string.star", "x = '{x!}'.format(x=1)\n", /unknown conversion/],
  ["tuple.star", "x = (1, 2)\nx[0] = 3\n", /tuple value does not support item assignment/, { line: 2 }],
  ["tuple.star", "x = (1, 2) + [3]\n", /unknown binary op: tuple \+ list/, { line: 1 }],
  ["tuple.star", "x = ()[0]\n", /index 0 out of range: empty tuple/, { line: 1 }],
  [
    "tuple.star",
    "abc = ('a', 'b', 'c')\nx = abc * (1000000 * 1000000)\n",
    /repeat count 1000000000000 too large/,
    { line: 2 },
  ],
  [
    "tuple.star",
    "abc = ('a', 'b', 'c')\nx = abc * 1000000 * 1000000\n",
    /excessive repeat \(3000000 \* 1000000 elements/,
    { line: 2 },
  ],
  ["tuple.star", "x = tuple(1)\n", /got int, want iterable/],
  [
    "module.star",
    "load('encoding/json.star', 'json')\nx = {json: None}\n",
    /unhashable: module/,
    { line: 2 },
  ],
  [
    "module.star",
    "load('encoding/json.star', 'json')\njson.foo = None\n",
    /can't assign to .foo field of module/,
    { line: 2 },
  ],
  [
    "module.star",
    "load('encoding/json.star', 'json')\nx = json.nonesuch\n",
    /module has no .nonesuch field or method$/,
    { line: 2 },
  ],
  [
    "module.star",
    "load('encoding/json.star', 'json')\nx = json.decods\n",
    /module has no .decods field or method .did you mean .decode\?/,
    { line: 2 },
  ],
  ["builtins.star", "x = len(1)\n", /int.*has no len/],
  [
    "builtins.star",
    "x = sorted([1, 2, None, 3])\n",
    /int < NoneType not implemented|NoneType < int not implemented/,
  ],
  ["builtins.star", "x = sorted([1, 2, 3], key=None)\n", /got NoneType, want callable/],
  ["builtins.star", "x = {range(10): 10}\n", /unhashable: range/, { line: 1 }],
  ["builtins.star", "x = range(0) < range(0)\n", /range < range not implemented/, { line: 1 }],
  ["builtins.star", "x = True in range(3)\n", /requires integer.*not bool/, { line: 1 }],
  ["builtins.star", "x = min()\n", /min requires at least one positional argument/],
  ["builtins.star", "x = min(1)\n", /not iterable/],
  ["builtins.star", "x = min([])\n", /empty/],
  ["builtins.star", "x = zip([1], 1)\n", /zip: argument #2 is not iterable: int/],
  ["builtins.star", "x = getattr(1, 'x')\n", /no .x field or method/],
  ["builtins.star", "x = range(0, 0, 2)[:][0]\n", /index 0 out of range: empty range/, { line: 1 }],
  [
    "recursion.star",
    "def f(n):\n  return f(n + 1)\nf(0)\n",
    /maximum recursion depth exceeded|too many steps/,
  ],
  ["module.star", "load('assert.star', 'nope')\n", /cannot load assert.star/, { line: 1 }],
  ["misc.star", "x = struct_like.froze\n", /undefined: struct_like/, { line: 1 }],
];

describe("error chunks of go.starlark.net's testdata", () => {
  it.each(chunks.map((c, i) => [`${c[0]} #${i}: ${c[2].source}`, c] as const))("%s", (_name, chunk) => {
    const [, src, pattern, opts] = chunk;
    const got = errorOf(src, opts?.dialect ?? KPT_DIALECT);
    expect(got.msg).toMatch(pattern);
    if (opts?.line !== undefined) expect(got.line).toBe(opts.line);
  });
});
