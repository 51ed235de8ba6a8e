import { describe, expect, it } from "vitest";
import { evalX } from "./helpers.js";

// Expected texts follow go.starlark.net's scanner, parser and resolver (file:line:col: message).
const cases: [string, string, string][] = [
  ["missing operand", "x = 1 +\n", "error: t.star:2:1: got newline, want primary expression"],
  [
    "missing operand at EOF in block",
    "def f():\n  x = (",
    "error: t.star:2:8: got newline, want primary expression",
  ],
  ["unexpected bracket", "x = 1)\n", "error: t.star:1:6: unexpected ')'"],
  [
    "bad indentation",
    "def f():\n    x = 1\n  y = 2\n",
    "error: t.star:3:3: unindent does not match any outer indentation level",
  ],
  ["unterminated string", 'x = "abc\n', "error: t.star:1:5: unexpected newline in string"],
  ["string EOF", 'x = "abc', "error: t.star:1:5: unexpected EOF in string"],
  ["stray backslash", "x = 1 \\ 2\n", "error: t.star:1:8: stray backslash in program"],
  ["bang", "x = !1\n", "error: t.star:1:5: unexpected input character '!'"],
  [
    "non-associative comparison",
    "x = 1 < 2 < 3\n",
    "error: t.star:1:12: < does not associate with < (use parens)",
  ],
  [
    "conditional without else",
    "x = 1 if True\n",
    "error: t.star:1:7: conditional expression without else clause",
  ],
  ["trailing comma tuple", "x = 1,\n", "error: t.star:1:6: unparenthesized tuple with trailing comma"],
  ["reserved word", "x = class\n", "error: t.star:1:10: got illegal token, want primary expression"],
  ["keyword arg form", "x = f(1+1=2)\n", "error: t.star:1:11: keyword argument must have form name=expr"],
  ["load needs symbols", 'load("m")\n', "error: t.star:1:5: load statement must import at least 1 symbol"],
  ["undefined name", "x = y\n", "error: t.star:1:5: undefined: y"],
  ["global reassign", "x = 1\nx = 2\n", "error: t.star:2:1: cannot reassign global x declared at t.star:1:1"],
  ["top-level for", "for i in []: pass\n", "error: t.star:1:1: for loop not within a function"],
  ["top-level if", "if True: pass\n", "error: t.star:1:1: if statement not within a function"],
  [
    "while off",
    "def f():\n  while True: pass\n",
    "error: t.star:2:3: this Starlark dialect does not support while loops",
  ],
  ["return at top level", "return 1\n", "error: t.star:1:1: return statement not within a function"],
  ["break outside loop", "def f():\n  break\n", "error: t.star:2:3: break not in a loop"],
  ["set off", "x = set()\n", "error: t.star:1:5: this Starlark dialect does not support set"],
  ["duplicate param", "def f(a, a): pass\n", "error: t.star:1:10: duplicate parameter: a"],
  ["hex literal", "x = 0x1F\n", "31"],
  ["octal literal", "x = 0o17\n", "15"],
  ["big literal", "x = 123456789012345678901234567890\n", "123456789012345678901234567890"],
  ["float literal", "x = 1e3\n", "1000.0"],
  ["escapes", 'x = "a\\tb\\x41\\u00e9\\101"\n', '"a\\tbAéA"'],
  ["raw string", 'x = r"a\\nb"\n', '"a\\\\nb"'],
  ["triple quoted", 'x = """a\nb"""\n', '"a\\nb"'],
  ["line joining in brackets", "x = [1,\n  2,\n]\n", "[1, 2]"],
  ["semicolons", "a = 1; x = a + 1\n", "2"],
  ["comments", "# c\nx = 1 # d\n", "1"],
  ["bytes literal", 'x = b"ab\\x00"\n', 'b"ab\\x00"'],
];

describe("starlark syntax", () => {
  it.each(cases)("%s", (_name, src, want) => {
    expect(evalX(src)).toBe(want);
  });
});
