import { describe, expect, it } from "vitest";
import { evalX } from "./helpers.js";

type Case = [name: string, src: string, want: string];

// Cases from go.starlark.net's starlark/testdata/string.star: strings are byte strings.
const cases: Case[] = [
  ["len counts UTF-8 bytes", 'x = (len("Hello, 世界!"), len("𐐷"))', "(14, 4)"],
  ["chr encodes UTF-8", "x = (chr(65), chr(1049), chr(0x1F63F), len(chr(0x1F63F)))", '("A", "Й", "😿", 4)'],
  ["chr below range", "x = chr(-1)", "error: chr: Unicode code point -1 out of range (<0)"],
  [
    "chr above range",
    "x = chr(0x110000)",
    "error: chr: Unicode code point U+110000 out of range (>0x10FFFF)",
  ],
  ["ord of runes", 'x = (ord("A"), ord("Й"), ord("😿"), ord("Й"[1:]))', "(65, 1049, 128575, 65533)"],
  ["ord of three runes", 'x = ord("abc")', "error: ord: string encodes 3 Unicode code points, want 1"],
  ["ord of empty", 'x = ord("")', "error: ord: string encodes 0 Unicode code points, want 1"],
  ["ord of a broken rune", 'x = ord("😿"[1:])', "error: ord: string encodes 3 Unicode code points, want 1"],
  [
    "indexing is by byte",
    'x = ("Hello, 世界!"[0], "Hello, 世界!"[7], "Hello, 世界!"[13])',
    '("H", "\\xe4", "!")',
  ],
  ["slicing is by byte", 'x = ("世界"[0:3], "世界"[3:], "世界"[1:2])', '("世", "界", "\\xb8")'],
  ["reversed non-ASCII is bytes", 'x = len("é"[::-1])', "2"],
  ["index out of range", 'x = "abc"[-4]', "error: string index -4 out of range [-3:2]"],
  [
    "no item assignment",
    'x2 = "abc"\ndef f(): x2[1] = "B"\nx = f()',
    "error: string value does not support item assignment",
  ],
  [
    "elems type and repr",
    'x = (type("abcЙ😿".elems()), str("abcЙ😿".elems()))',
    '("elems", "\\"abcЙ😿\\".elems()")',
  ],
  [
    "codepoints type",
    'x = (type("a".codepoints()), type("a".codepoint_ords()), type("a".elem_ords()))',
    '("codepoints", "codepoints", "elems")',
  ],
  ["codepoint_ords", 'x = list("abcЙ😿".codepoint_ords())', "[97, 98, 99, 1049, 128575]"],
  [
    "codepoint_ords of broken",
    'x = list(("A" + "😿Z"[1:]).codepoint_ords())',
    "[65, 65533, 65533, 65533, 90]",
  ],
  ["codepoints", 'x = list("abcЙ😿".codepoints())', '["a", "b", "c", "Й", "😿"]'],
  [
    "codepoints of broken",
    'x = list(("A" + "😿Z"[1:]).codepoints())',
    '["A", "\\x9f", "\\x98", "\\xbf", "Z"]',
  ],
  ["elem_ords", 'x = list("abcЙ😿".elem_ords())', "[97, 98, 99, 208, 153, 240, 159, 152, 191]"],
  ["elems", 'x = list("aЙ".elems())', '["a", "\\xd0", "\\x99"]'],
  ["elems are not indexable", 'x = "ab".elems()[0]', "error: unhandled index operation elems[int]"],
  ["elems have no len", 'x = len("ab".elems())', "error: len: value of type elems has no len"],
  ["elems are iterable in a loop", 'def f():\n  return [c for c in "ab".elems()]\nx = f()', '["a", "b"]'],
  ["elems are unhashable", 'x = {"ab".elems(): 1}', "error: unhashable: elems"],
  [
    "strings are not iterable",
    "def f():\n  for c in 'abc': pass\nx = f()",
    "error: string value is not iterable",
  ],
  ["list of a string", 'x = list("abc")', "error: list: for parameter 1: got string, want iterable"],
  ["in needs a string", 'x = 1 in "abc"', "error: 'in <string>' requires string as left operand, not int"],
  ["repeat by float", 'x = 1.0 * "abc"', "error: unknown binary op: float * string"],
  ["percent %c", 'x = ("%c" % 65, "%c" % 0x3b1, "%c" % "α")', '("A", "α", "α")'],
  ["percent %c of several", 'x = "%c" % "abc"', "error: %c format requires a single-character string"],
  [
    "percent %c of a bad code point",
    'x = "%c" % 10000000',
    "error: %c format requires a valid Unicode code point, got 10000000",
  ],
  ["split on whitespace", 'x = " a bc\\n  def \\t  ghi".split(None, 1)', '["a", "bc\\n  def \\t  ghi"]'],
  ["rsplit on whitespace", 'x = " a bc\\n  def \\t  ghi".rsplit(None, 2)', '[" a bc", "def", "ghi"]'],
  ["rsplit with zero", 'x = "  aa  bb  cc  ".rsplit(None, 0)', '["  aa  bb  cc"]'],
  ["split with zero", 'x = "  aa  bb  cc  ".split(None, 0)', '["aa  bb  cc  "]'],
  [
    "split on a separator",
    'x = ("--aa--bb--cc--".split("-", 1), "--aa--bb--cc--".rsplit("-", 1))',
    '(["", "-aa--bb--cc--"], ["--aa--bb--cc-", ""])',
  ],
  ["split by empty", 'x = "a".split("")', "error: split: empty separator"],
  ["split by int", 'x = "a".split(1)', "error: split: got int for separator, want string"],
  ["splitlines keeps ends", 'x = "\\nabc\\ndef\\n".splitlines(True)', '["\\n", "abc\\n", "def\\n"]'],
  [
    "strip cutset",
    'x = ("blah.h".strip("b.h"), "blah.h".lstrip("b.h"), "blah.h".rstrip("b.h"))',
    '("la", "lah.h", "bla")',
  ],
  ["strip empty cutset strips space", 'x = " \\tfoo\\n ".strip("")', '"foo"'],
  ["strip unicode space", 'x = "\\u00a0é\\u2003".strip()', '"é"'],
  [
    "strip None is an error",
    'x = "a".strip(None)',
    "error: strip: for parameter 1: got NoneType, want string",
  ],
  [
    "count with bounds",
    'x = ("banana".count("a", -4, -2), "banana".count("a", 0, -100), "éé".count(""))',
    "(1, 0, 3)",
  ],
  [
    "startswith tuple",
    "x = ('abc'.startswith(('a', 'A')), 'abc'.startswith('bc', 1), 'abc'.endswith('ab', None, -1))",
    "(True, True, True)",
  ],
  [
    "startswith bad element",
    "x = '123'.startswith((1, 2))",
    "error: startswith: want string, got int, for element 0",
  ],
  [
    "startswith list",
    "x = '123'.startswith(['3'])",
    "error: startswith: got list, want string or tuple of string",
  ],
  [
    "find and rfind",
    'x = ("foofoo".find("oo", 2), "foofoo".rfind("oo", 1, 4), "foofoo".rfind(""), "héllo".find("l"))',
    "(4, 1, 6, 3)",
  ],
  ["index not found", 'x = "abc".index("z")', "error: substring not found"],
  ["replace empty inserts between runes", 'x = "éa".replace("", "-")', '"-é-a-"'],
  ["partition", 'x = "foo/bar/wiz".rpartition("/")', '("foo/bar", "/", "wiz")'],
  ["partition empty", 'x = "a".partition("")', "error: partition: empty separator"],
  [
    "capitalize",
    'x = ("hElLo, WoRlD!".capitalize(), "¿Por qué?".capitalize())',
    '("Hello, world!", "¿por qué?")',
  ],
  ["upper and lower", 'x = ("por qué".upper(), "¿Por QUÉ?".lower())', '("POR QUÉ", "¿por qué?")'],
  ["title", 'x = ("hElLo, WoRlD!".title(), "¿Por qué?".title())', '("Hello, World!", "¿Por Qué?")'],
  [
    "predicates",
    'x = [("Hello, World!".istitle(), "Catch-22".istitle(), "HAL-9000".isupper(), "base64".isalnum(), "123".isdigit(), "\\n\\t\\r".isspace(), "".isalpha(), "héllo".isalpha())]',
    "[(True, True, True, True, True, True, False, True)]",
  ],
  ["join", 'x = ",".join(["a", "é"])', '"a,é"'],
  ["join non-strings", 'x = ",".join([1])', "error: join: in list, want string, got int"],
  ["join a string", 'x = ",".join("abc")', "error: join: for parameter 1: got string, want iterable"],
  ["format", 'x = "a{x}b{y}c{}".format(1, x=2, y=3)', '"a2b3c1"'],
  ["format missing keyword", 'x = "a{z}b".format(x=1)', "error: keyword z not found"],
  [
    "format switch",
    'x = "a{}b{1}c".format(1, 2)',
    "error: cannot switch from automatic field numbering to manual field specification",
  ],
  [
    "repr keeps printable runes, escapes the rest",
    'x = repr("é\\x01\\u200b" + "😿"[:2])',
    '"\\"é\\\\x01\\\\u200b\\\\xf0\\\\x9f\\""',
  ],
];

describe("strings are byte strings (testdata/string.star)", () => {
  it.each(cases)("%s", (_name, src, want) => {
    expect(evalX(src)).toBe(want);
  });
});
