import { describe, expect, it } from "vitest";
import { StarlarkSyntaxError } from "../../../src/fn/starlark/errors.js";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { parseFile } from "../../../src/fn/starlark/parser.js";

// Chunks of go.starlark.net's syntax/testdata/errors.star: [source, pattern, line of the error].
const chunks: [src: string, pattern: RegExp, line: number][] = [
  // Go reports parser errors at the scanner's position, after the offending newline
  ["x = 1 +\n2\n", /got newline, want primary expression/, 2],
  ["_ = %x\n", /got '%', want primary/, 1],
  ["def f(*args, ):\n  pass\n", /got '\)', want parameter/, 1],
  ["def f(**kwargs, ):\n  pass\n", /got '\)', want parameter/, 1],
  ["def pass():\n  pass\n", /not an identifier/, 1],
  ["def f :\n", /got ':', want '\('/, 1],
  ["f(*args, )\n", /got '\)', want argument/, 1],
  ["f(**kwargs, )\n", /got '\)', want argument/, 1],
  ["f(a=1, *, b=2)\n", /got ',', want primary/, 1],
  ["_ = {x:y for y in z}\n_ = {x for y in z}\n", /got for, want ':'/, 2],
  ["def f():\n  pass\n pass\n", /unindent does not match any outer indentation level/, 3],
  ["_ = [x for x in lambda: True, lambda: False if x()]\n", /got lambda, want primary/, 1],
  ["_ = [x for x in 1, 2, 3]\n", /got ',', want ']', for, or if/, 1],
  ["_ = [a for b in c if 1, 2]\n", /got ',', want ']', for, or if/, 1],
  ["_ = [a for b in c if lambda: d if e else f]\n", /got else, want ']'/, 1],
  ["_ = [a for b in lambda: c]\n", /got lambda, want primary/, 1],
  ["_ = 0 == 1 == 2\n", /== does not associate with ==/, 1],
  ["_ = 0 <= i < n\n", /<= does not associate with </, 1],
  ["_ = a in b not in c\n", /in does not associate with not in/, 1],
  ["_ = [x for x in a if b else c]\n", /got else, want ']', for, or if/, 1],
  ["[a for b in c else d]\n", /got else, want ']', for, or if/, 1],
  ["_ = a + b not c\n", /got identifier, want in/, 1],
  ["f(1+2 = 3)\n", /keyword argument must have form name=expr/, 1],
  ["print(1, 2, 3\n", /got end of file, want '\)'/, 2],
  ["_ = a if b\n", /conditional expression without else clause/, 1],
  ['load("")\n', /load statement must import at least 1 symbol/, 1],
  ['load("", 1)\n', /load operand must be "name" or localname="name" \(got int literal\)/, 1],
  ["load(1, 2)\n", /first operand of load statement must be a string literal/, 1],
  ['load("a", x)\n', /load operand must be "x" or x="originalname"/, 1],
  ['load("a", x2=x)\n', /original name of loaded symbol must be quoted: x2="originalname"/, 1],
  ["load = 1\n", /got '=', want '\('/, 1],
  ["f(load())\n", /got load, want primary/, 1],
  ["def load():\n  pass\n", /not an identifier/, 1],
  ["def f(load):\n  pass\n", /not an identifier/, 1],
  ["print 1 2\n", /got int literal, want newline/, 1],
  ["raw = r'a\nb'\n", /unexpected newline in string/, 1],
  ["x[1, 2,:]\n", /got ':', want primary/, 1],
  ["a, b, = 1, 2\n", /unparenthesized tuple with trailing comma/, 1],
  ["a, b = 1, 2,\n", /unparenthesized tuple with trailing comma/, 1],
  ["a = max(range(10)))\n", /unexpected '\)'/, 1],
  ['s = "\\x-0"\n', /invalid escape sequence/, 1],
];

const ok = [
  "def f(a, ):\n  pass\n",
  "def f(**kwargs, *args, b=1, a, **kwargs, *args, b=1, a):\n  pass\n",
  "f(a, )\n",
  "def f():\n\tpass\n\n",
  "def f():\n\tpass",
  "_ = [x for x in (lambda: True, lambda: False) if x()]\n",
  "for x in 1, 2, 3:\n      print(x)\n",
  "_ = [a for b in c if lambda: d]\n",
  'load("a", "x")\nload("a", "x", y2="y")\nload("a", x2="x", "y")\n',
  'load("module", "x",)\n',
  "x[1, 2:]\n",
  "(a, b,) = 1, 2\nc, d = 1, 2\n",
];

describe("parse errors of syntax/testdata/errors.star", () => {
  it.each(chunks)("%s", (src, pattern, line) => {
    let err: unknown;
    try {
      parseFile("chunk.star", src);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StarlarkSyntaxError);
    const e = err as StarlarkSyntaxError;
    expect(e.msg).toMatch(pattern);
    expect(e.pos.line).toBe(line);
  });

  it.each(ok)("parses %j", (src) => {
    expect(() => parseFile("chunk.star", src)).not.toThrow();
  });
});

describe("which resolve error is reported first, as Go's resolver orders them", () => {
  it("reports statement errors before undefined names inside functions", () => {
    let err: unknown;
    try {
      execFile("def f():\n  return undefined_x\nbreak\n", new Map(), { name: "c.star" });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toBe("c.star:3:1: break not in a loop");
  });
});
