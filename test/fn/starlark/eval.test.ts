import { describe, expect, it } from "vitest";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { setIndex } from "../../../src/fn/starlark/ops.js";
import { evalX, KPT_DIALECT } from "./helpers.js";

type Case = [name: string, src: string, want: string];

// Behaviours and error texts follow go.starlark.net's spec and testdata.
const sections: Record<string, Case[]> = {
  "ints and floats": [
    ["small arithmetic", "x = (1 + 2) * 3 - 4", "5"],
    ["floor division rounds down", "x = (-7 // 2, 7 // -2, -7 % 2, 7 % -2)", "(-4, -4, 1, -1)"],
    ["true division gives float", "x = 7 / 2", "3.5"],
    ["big ints", "x = 9007199254740993 * 3", "27021597764222979"],
    ["big int back to small", "x = (2 * 4611686018427387904) // 4611686018427387904", "2"],
    [
      "bitwise",
      "x = (6 & 3, 6 | 3, 6 ^ 3, ~5, 1 << 70, -16 >> 2)",
      "(2, 7, 5, -6, 1180591620717411303424, -4)",
    ],
    ["int/float equality", "x = (1 == 1.0, 0.1 + 0.2 == 0.3, 2 < 2.5)", "(True, False, True)"],
    [
      "float str",
      "x = [str(1.0), str(1e20), str(0.0001), str(1e-5), str(123456.0), str(1234567.0)]",
      '["1.0", "1e+20", "0.0001", "1e-05", "123456.0", "1.234567e+06"]',
    ],
    ["division by zero", "x = 1 // 0", "error: floored division by zero"],
    ["float division by zero", "x = 1 / 0", "error: floating-point division by zero"],
    ["modulo by zero", "x = 1 % 0", "error: integer modulo by zero"],
    [
      "int()",
      'x = (int("42"), int("-0x1f", 16), int("0b101", 0), int(3.9), int(True))',
      "(42, -31, 5, 3, 1)",
    ],
    ["int() bad literal", 'x = int("12a")', 'error: int: invalid literal with base 10: "12a"'],
    ["float()", 'x = (float("1.5"), float(2), float("inf"))', "(1.5, 2.0, +inf)"],
    ["abs and unary", "x = (abs(-3), -(-2), +4, abs(-2.5))", "(3, 2, 4, 2.5)"],
  ],
  strings: [
    ["concat and repeat", 'x = "ab" + "c" * 2', '"abcc"'],
    [
      "index and slice",
      'x = ("hello"[1], "hello"[-1], "hello"[1:3], "hello"[::-1], "hello"[:10])',
      '("e", "o", "el", "olleh", "hello")',
    ],
    ["index out of range", 'x = "abc"[5]', "error: string index 5 out of range [-3:2]"],
    ["len counts utf-8 bytes", 'x = (len("abc"), len("é"))', "(3, 2)"],
    ["in", 'x = ("ell" in "hello", "z" not in "hello")', "(True, True)"],
    ["in wrong type", 'x = 1 in "abc"', "error: 'in <string>' requires string as left operand, not int"],
    [
      "percent format",
      'x = "%s-%d-%r-%x-%5%" % ("a", 3, "b", 255) if False else "%s-%d-%r-%x" % ("a", 3, "b", 255)',
      '"a-3-\\"b\\"-ff"',
    ],
    ["percent with dict", 'x = "%(a)s and %(b)d" % {"a": "x", "b": 2}', '"x and 2"'],
    ["percent too few", 'x = "%s %s" % ("a",)', "error: not enough arguments for format string"],
    ["percent too many", 'x = "%s" % ("a", "b")', "error: too many arguments for format string"],
    [
      "format",
      'x = "{} {} {name} {0!r}".format("a", "b", name="n") if False else "{} {} {name}".format("a", "b", name="n")',
      '"a b n"',
    ],
    ["format manual", 'x = "{1}{0}{{}}".format("a", "b")', '"ba{}"'],
    ["split/join", 'x = ",".join(" a  b ".split()) + "|" + "|".join("a,b,,c".split(",", 2))', '"a,b|a|b|,c"'],
    ["rsplit", 'x = "a.b.c".rsplit(".", 1)', '["a.b", "c"]'],
    ["strip family", 'x = (" x ".strip(), "xxaxx".lstrip("x"), "xxaxx".rstrip("x"))', '("x", "axx", "xxa")'],
    [
      "case",
      'x = ("aB".upper(), "aB".lower(), "hello world".title(), "hello".capitalize())',
      '("AB", "ab", "Hello World", "Hello")',
    ],
    [
      "find family",
      'x = ("hello".find("l"), "hello".rfind("l"), "hello".find("z"), "hello".count("l"))',
      "(2, 3, -1, 2)",
    ],
    ["index missing", 'x = "hello".index("z")', "error: substring not found"],
    ["starts/ends", 'x = ("hello".startswith("he"), "hello".endswith(("x", "lo")))', "(True, True)"],
    ["replace", 'x = "aaa".replace("a", "b", 2)', '"bba"'],
    [
      "partition",
      'x = ("a=b=c".partition("="), "a=b=c".rpartition("="))',
      '(("a", "=", "b=c"), ("a=b", "=", "c"))',
    ],
    [
      "predicates",
      'x = ("123".isdigit(), "abc".isalpha(), " ".isspace(), "Ab".istitle())',
      "(True, True, True, True)",
    ],
    [
      "prefix/suffix removal",
      'x = ("prefix-x".removeprefix("prefix-"), "x.yaml".removesuffix(".yaml"))',
      '("x", "x")',
    ],
    ["splitlines splits on \\n only, as Go", 'x = "a\\nb\\r\\nc\\n".splitlines()', '["a", "b\\r", "c"]'],
    ["elems", 'x = list("ab".elems())', '["a", "b"]'],
    ["not iterable", "def f():\n  for c in 'abc': pass\nx = f()", "error: string value is not iterable"],
    ["no such method", 'x = "a".nope()', "error: string has no .nope field or method"],
    ["repr escapes", 'x = repr("a\\"b\\n")', '"\\"a\\\\\\"b\\\\n\\""'],
    ["chr/ord", 'x = (chr(65), ord("A"))', '("A", 65)'],
  ],
  lists: [
    ["literal and index", "x = [1, 2, 3][-1]", "3"],
    [
      "append/extend/insert/pop/remove",
      "def f():\n  l = [1]\n  l.append(2)\n  l.extend([3, 4])\n  l.insert(0, 0)\n  l.pop()\n  l.remove(2)\n  return l\nx = f()",
      "[0, 1, 3]",
    ],
    ["index method", "x = [1, 2, 3].index(2)", "1"],
    ["slices", "x = [0, 1, 2, 3, 4][1:4:2]", "[1, 3]"],
    ["plus and times", "x = [1] + [2] * 2", "[1, 2, 2]"],
    [
      "augmented += extends in place",
      "def f():\n  a = [1]\n  b = a\n  a += [2]\n  return b\nx = f()",
      "[1, 2]",
    ],
    ["comparison", "x = ([1, 2] < [1, 3], [1, 2] == [1, 2])", "(True, True)"],
    ["out of range", "x = [1][3]", "error: list index 3 out of range [-1:0]"],
    ["empty out of range", "x = [][0]", "error: index 0 out of range: empty list"],
    [
      "mutate during iteration",
      "def f():\n  l = [1, 2]\n  for i in l:\n    l.append(i)\nx = f()",
      "error: cannot append to list during iteration",
    ],
    ["frozen after load", "l = [1]\ndef f():\n  l.append(2)\nx = 1", "1"],
    ["comprehension", "x = [i * j for i in range(3) for j in range(2) if i]", "[0, 1, 0, 2]"],
    ["unhashable", "x = {[1]: 2}", "error: unhashable type: list"],
  ],
  "dicts and sets": [
    ["insertion order", 'x = {"b": 1, "a": 2, "c": 3}.keys()', '["b", "a", "c"]'],
    [
      "get/setdefault/pop",
      'def f():\n  d = {"a": 1}\n  d.setdefault("b", 2)\n  return (d.get("a"), d.get("z", 0), d.pop("b"), d)\nx = f()',
      '(1, 0, 2, {"a": 1})',
    ],
    ["missing key", 'x = {"a": 1}["b"]', 'error: key "b" not in dict'],
    [
      "items and update",
      'def f():\n  d = dict(a=1)\n  d.update([("b", 2)], c=3)\n  return d.items()\nx = f()',
      '[("a", 1), ("b", 2), ("c", 3)]',
    ],
    [
      "reinsert after delete goes last",
      'def f():\n  d = {"a": 1, "b": 2}\n  d.pop("a")\n  d["a"] = 3\n  return d\nx = f()',
      '{"b": 2, "a": 3}',
    ],
    ["duplicate key in literal", 'x = {"a": 1, "a": 2}', 'error: duplicate key: "a"'],
    ["dict comprehension", "x = {k: k * 2 for k in range(3)}", "{0: 0, 1: 2, 2: 4}"],
    ["1 and 1.0 are the same key", "x = {1: 'a', 1.0: 'b'} if False else len({1: 'a'} | {1.0: 'b'})", "1"],
    ["frozen dict", 'd = {}\ndef f():\n  d["a"] = 1\nf2 = f\nx = 1', "1"],
  ],
  "functions and scope": [
    [
      "defaults and kwargs",
      "def f(a, b=2, *args, **kw):\n  return (a, b, args, kw)\nx = f(1, 3, 4, z=5)",
      '(1, 3, (4,), {"z": 5})',
    ],
    ["keyword-only", "def f(a, *, b):\n  return a + b\nx = f(1, b=2)", "3"],
    ["missing argument", "def f(a, b):\n  pass\nx = f(1)", "error: function f missing 1 argument (b)"],
    [
      "too many arguments",
      "def f(a):\n  pass\nx = f(1, 2)",
      "error: function f accepts 1 positional argument (2 given)",
    ],
    [
      "unexpected keyword",
      "def f(a):\n  pass\nx = f(b=1)",
      'error: function f got an unexpected keyword argument "b"',
    ],
    [
      "closure counter",
      "def mk():\n  n = [0]\n  def inc():\n    n[0] += 1\n    return n[0]\n  return inc\nc = mk()\nx = (c(), c())",
      "(1, 2)",
    ],
    [
      "lambda captures",
      "def f():\n  k = 10\n  return list(map2(lambda v: v + k, [1, 2]))\ndef map2(fn, l):\n  return [fn(e) for e in l]\nx = f()",
      "[11, 12]",
    ],
    ["star args call", "def f(a, b, c):\n  return a + b + c\nx = f(*[1, 2], **{'c': 3})", "6"],
    [
      "local before assignment",
      "def f():\n  y = z\n  z = 1\nx = f()",
      "error: local variable z referenced before assignment",
    ],
    [
      "global before assignment",
      "def f():\n  return g\ny = f()\ng = 1",
      "error: global variable g referenced before assignment",
    ],
    [
      "recursion off by default",
      "def f(n):\n  return 0 if n == 0 else f(n - 1)\nx = f(3)",
      "error: function f called recursively",
    ],
    ["call non-function", "x = 1()", "error: invalid call of non-function (int)"],
    ["fail", 'x = fail("bad", 1)', "error: fail: bad 1"],
    ["unpack mismatch", "a, b = [1, 2, 3]", "error: too many values to unpack (got 3, want 2)"],
    ["unpack too few", "a, b, c = (1, 2)", "error: too few values to unpack (got 2, want 3)"],
    ["unpack non-iterable", "a, b = 1", "error: got int in sequence assignment"],
  ],
  builtins: [
    ["len/range", "x = (len([1, 2]), list(range(1, 10, 3)), len(range(5)))", "(2, [1, 4, 7], 5)"],
    ["range repr", "x = (range(3), range(1, 3), range(0, 3, 2))", "(range(3), range(1, 3), range(0, 3, 2))"],
    [
      "enumerate/zip",
      'x = (enumerate(["a"], 1), zip([1, 2], "ab".elems()))',
      '([(1, "a")], [(1, "a"), (2, "b")])',
    ],
    [
      "sorted with key and reverse",
      'x = sorted(["bb", "a", "ccc"], key=len, reverse=True)',
      '["ccc", "bb", "a"]',
    ],
    ["sorted mixed types", 'x = sorted([1, "a"])', "error: string < int not implemented"],
    ["min/max", "x = (min(3, 1, 2), max([1, 5, 2]), max(['a', 'bb'], key=len))", '(1, 5, "bb")'],
    ["any/all", "x = (any([0, 1]), all([1, 0]), all([]))", "(True, False, True)"],
    ["reversed", "x = reversed([1, 2, 3])", "[3, 2, 1]"],
    [
      "type",
      'x = [type(v) for v in [None, True, 1, 1.0, "s", [], (), {}, len]]',
      '["NoneType", "bool", "int", "float", "string", "list", "tuple", "dict", "builtin_function_or_method"]',
    ],
    [
      "hasattr/getattr/dir",
      'x = (hasattr("", "split"), getattr([], "nope", 7), "append" in dir([]))',
      "(True, 7, True)",
    ],
    [
      "bool/str/repr",
      'x = (bool([]), str(None), repr([1, "a"]), str("s"))',
      '(False, "None", "[1, \\"a\\"]", "s")',
    ],
    ["tuple/list", "x = (tuple([1]), list((1, 2)))", "((1,), [1, 2])"],
    ["hash of string", 'x = hash("a") == hash("a")', "True"],
    ["len of int", "x = len(1)", "error: len: value of type int has no len"],
    ["builtin arg count", "x = len()", "error: len: got 0 arguments, want 1"],
    ["unknown binary op", 'x = 1 + "a"', "error: unknown binary op: int + string"],
    ["conditional expression", "x = 1 if [] else 2", "2"],
    ["and/or values", 'x = (0 or "d", 1 and 2, None or None)', '("d", 2, None)'],
  ],
};

describe("starlark evaluation (Go dialect)", () => {
  for (const [section, cases] of Object.entries(sections)) {
    describe(section, () => {
      it.each(cases)("%s", (_name, src, want) => {
        expect(evalX(src)).toBe(want);
      });
    });
  }
});

describe("starlark evaluation (kpt dialect: set, while, recursion, global reassign)", () => {
  const cases: Case[] = [
    ["top-level for and reassign", "x = 0\nfor i in range(4):\n  x += i", "6"],
    ["while loop", "def f():\n  n = 0\n  while n < 5:\n    n += 2\n  return n\nx = f()", "6"],
    [
      "recursion",
      "def fact(n):\n  return 1 if n <= 1 else n * fact(n - 1)\nx = fact(25)",
      "15511210043330985984000000",
    ],
    [
      "unbounded recursion ends",
      "def f(n):\n  return f(n + 1)\nx = f(0)",
      "error: maximum recursion depth exceeded",
    ],
    [
      "break and continue",
      "x = []\nfor i in range(10):\n  if i % 2:\n    continue\n  if i > 6:\n    break\n  x.append(i)",
      "[0, 2, 4, 6]",
    ],
    ["set builtin", "x = set([1, 2, 2])", "set([1, 2])"],
    [
      "set ops",
      "x = sorted(set([1, 2, 3]) | set([4])) + sorted(set([1, 2]) & set([2, 3]))",
      "[1, 2, 3, 4, 2]",
    ],
    [
      "set methods",
      "def f():\n  s = set()\n  s.add(1)\n  s.add(1)\n  return (len(s), 1 in s, s.union([2]))\nx = f()",
      "(1, True, set([1, 2]))",
    ],
    ["frozen values after module load are not visible here", "x = [1]\nx.append(2)", "[1, 2]"],
  ];
  it.each(cases)("%s", (_name, src, want) => {
    expect(evalX(src, KPT_DIALECT)).toBe(want);
  });
});

describe("frozen values", () => {
  it("freezes module globals after execution, so later mutation fails as in Go", () => {
    const { globals } = execFile("l = [1]\nd = {'a': [2]}\n", new Map(), { name: "t.star" });
    expect(() => setIndex(globals.get("l")!, 0, 5)).toThrow("cannot assign to element of frozen list");
    expect(() => setIndex(globals.get("d")!, "b", 5)).toThrow("cannot insert into frozen hash table");
  });
});
