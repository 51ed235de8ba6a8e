import { describe, expect, it } from "vitest";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { jsonModule } from "../../../src/fn/starlark/modules/json.js";
import { fromBytes } from "../../../src/fn/starlark/utf8.js";
import { repr } from "../../../src/fn/starlark/values/repr.js";
import { KPT_DIALECT } from "./helpers.js";

function run(src: string): string {
  try {
    const { globals } = execFile(`load("encoding/json.star", "json")\n${src}`, new Map(), {
      name: "t.star",
      dialect: KPT_DIALECT,
      load: () => new Map([["json", jsonModule()]]),
    });
    return fromBytes(repr(globals.get("x")!));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

type Case = [name: string, src: string, want: string];

// Cases from go.starlark.net's starlark/testdata/json.star and lib/json/json.go.
const cases: Case[] = [
  [
    "encode scalars",
    "x = [json.encode(v) for v in [None, True, False, 1, -2, 12345678901234567890]]",
    '["null", "true", "false", "1", "-2", "12345678901234567890"]',
  ],
  [
    "encode floats always have a point",
    "x = [json.encode(v) for v in [1.0, 1.5, 1e20, 0.1, 123456789.0]]",
    '["1.0", "1.5", "1e+20", "0.1", "1.23456789e+08"]',
  ],
  [
    "encode non-finite",
    'x = json.encode(float("inf"))',
    "error: json.encode: cannot encode non-finite float +inf",
  ],
  [
    "encode nested error path",
    'x = json.encode({"a": [1, float("nan")]})',
    'error: json.encode: in dict key "a": at list index 1: cannot encode non-finite float nan',
  ],
  ["encode sorts keys", 'x = json.encode({"b": 1, "a": [2, (3,)]})', '"{\\"a\\":[2,[3]],\\"b\\":1}"'],
  ["encode non-string key", "x = json.encode({1: 2})", "error: json.encode: dict has int key, want string"],
  [
    "encode a module as an object of its fields",
    "x = json.encode(json)",
    "error: json.encode: in field .decode: cannot encode builtin_function_or_method as JSON",
  ],
  [
    "encode function",
    "def f(): pass\nx = json.encode(f)",
    "error: json.encode: cannot encode function as JSON",
  ],
  [
    "encode cycle",
    "l = []\nl.append(l)\nx = json.encode(l)",
    "error: json.encode: at list index 0: cycle in JSON structure",
  ],
  ["encode printable ASCII as strconv.Quote", 'x = json.encode("a<b\\"")', '"\\"a<b\\\\\\"\\""'],
  [
    "encode other strings as encoding/json",
    'x = json.encode("é<\\n\\x01")',
    '"\\"é\\\\u003c\\\\n\\\\u0001\\""',
  ],
  ["encode invalid UTF-8", 'x = json.encode("é"[:1])', '"\\"\\\\ufffd\\""'],
  [
    "decode numbers",
    'x = json.decode("[1, 1.0, -0.5, 1e3, 12345678901234567890]")',
    "[1, 1.0, -0.5, 1000.0, 12345678901234567890]",
  ],
  [
    "decode objects keep order, later keys win",
    'x = json.decode(\'{"b": 1, "a": {"c": null}, "b": 2}\')',
    '{"b": 2, "a": {"c": None}}',
  ],
  ["decode escapes", "x = json.decode('\"\\\\u00e9\\\\ud83d\\\\ude3f\\\\n\\\\/\"')", '"é😿\\n/"'],
  ["decode keeps UTF-8", "x = len(json.decode('\"é\"'))", "2"],
  [
    "decode trailing garbage",
    'x = json.decode("1 2")',
    "error: json.decode: at offset 2, unexpected character '2' after value",
  ],
  ["decode leading zero", 'x = json.decode("01")', "error: json.decode: at offset 2, invalid number: 01"],
  [
    "decode unclosed string",
    "x = json.decode('\"abc')",
    "error: json.decode: at offset 0, unclosed string literal",
  ],
  [
    "decode bad array",
    'x = json.decode("[1 2]")',
    "error: json.decode: at offset 3, got '2', want ',' or ']'",
  ],
  [
    "decode bad key",
    'x = json.decode("{1: 2}")',
    "error: json.decode: at offset 2, got int for object key, want string",
  ],
  ["decode end of file", 'x = json.decode("[")', "error: json.decode: at offset 1, unexpected end of file"],
  [
    "decode bad escape",
    "x = json.decode('\"\\\\x\"')",
    "error: json.decode: at offset 4, invalid character 'x' in string escape code",
  ],
  ["decode a non-string", "x = json.decode(1)", "error: json.decode: for parameter 1: got int, want string"],
  // from starlark/testdata/json.star
  [
    "decode after value",
    'x = json.decode("truefalse")',
    "error: json.decode: at offset 4, unexpected character 'f' after value",
  ],
  [
    "decode single quotes",
    "x = json.decode(\"'abc'\")",
    "error: json.decode: at offset 0, unexpected character '\\''",
  ],
  ["decode plus", 'x = json.decode("+1")', "error: json.decode: at offset 0, unexpected character '+'"],
  ["decode lone minus", 'x = json.decode("-abc")', "error: json.decode: at offset 1, invalid number: -"],
  [
    "decode double exponent",
    'x = json.decode("1e1e1")',
    "error: json.decode: at offset 5, invalid number: 1e1e1",
  ],
  [
    "decode hex",
    'x = json.decode("0x123")',
    "error: json.decode: at offset 1, unexpected character 'x' after value",
  ],
  [
    "decode trailing comma",
    'x = json.decode("[1, 2, ]")',
    "error: json.decode: at offset 7, unexpected character ']'",
  ],
  [
    "decode object trailing comma",
    "x = json.decode('{\"one\": 1, }')",
    "error: json.decode: at offset 11, unexpected character '}'",
  ],
  [
    "decode missing colon",
    "x = json.decode('{\"one\" 1')",
    "error: json.decode: at offset 7, after object key, got '1', want ':' ",
  ],
  [
    "decode zero exponent is a float",
    'x = (json.decode("0e+1"), json.decode("-0"), json.decode("-0.0"))',
    "(0.0, 0, -0.0)",
  ],
  ["decode NUL escape", "x = json.decode('{\"foo\\\\u0000bar\": 42}')", '{"foo\\x00bar": 42}'],
  [
    "encode range and tuple cycle",
    "t = (1, 2, [])\nt[2].append(t)\nx = json.encode(t)",
    "error: json.encode: at tuple index 2: at list index 0: cycle in JSON structure",
  ],
  ["encode range", "x = json.encode(range(3))", '"[0,1,2]"'],
  [
    "encode big float",
    "x = json.encode(float(12345*12345*12345*12345*12345*12345))",
    '"3.539537889086625e+24"',
  ],
  [
    "indent with unicode prefix",
    "x = json.indent(json.encode({'x': 1}), prefix='¶', indent='–')",
    '"{\\n¶–\\"x\\": 1\\n¶}"',
  ],
  ["round trip", 'x = json.decode(json.encode({"a": [1, 2.5, None, "é"]}))', '{"a": [1, 2.5, None, "é"]}'],
  [
    "indent",
    'x = json.indent(\'{"a": [1, 2.50], "b": {}, "c": []}\', indent="  ")',
    '"{\\n  \\"a\\": [\\n    1,\\n    2.50\\n  ],\\n  \\"b\\": {},\\n  \\"c\\": []\\n}"',
  ],
  ["indent with prefix and tab default", 'x = json.indent("[1]", prefix="> ")', '"[\\n> \\t1\\n> ]"'],
  [
    "indent rejects positional options",
    'x = json.indent("[1]", "", "  ")',
    "error: json.indent: got 3 arguments, want 1",
  ],
  ["indent invalid", 'x = json.indent("[1,")', "error: json.indent: unexpected end of JSON input"],
  [
    "no encode_indent in lib/json",
    "x = json.encode_indent",
    "error: module has no .encode_indent field or method",
  ],
];

describe("load('encoding/json.star', 'json'): go.starlark.net/lib/json", () => {
  it.each(cases)("%s", (_name, src, want) => {
    expect(run(src)).toBe(want);
  });
});
