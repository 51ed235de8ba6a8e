import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { runStarlark } from "../../../src/fn/starlark/kpt.js";
import type { FunctionError } from "../../../src/fn/types.js";

/** Runs a script as the kpt function does and returns its print() lines (or the error message). */
function prints(source: string): string[] {
  const fc = parseDocument(
    `apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: t\nsource: |\n${source
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n")}\n`,
  );
  const lines: string[] = [];
  try {
    runStarlark({ items: [], functionConfig: fc, results: [] }, { print: (m) => lines.push(m) });
  } catch (e) {
    lines.push(`error: ${(e as FunctionError).message}`);
  }
  return lines;
}

describe("modules the catalog documents", () => {
  it("hash.star: md5, sha1 and sha256 of the string's bytes as hex (starlib hash)", () => {
    expect(
      prints(
        'load("hash.star", "hash")\nprint(hash.md5("abc"))\nprint(hash.sha1(""))\nprint(hash.sha256("é"))',
      ),
    ).toEqual([
      "900150983cd24fb0d6963f7d28e17f72",
      "da39a3ee5e6b4b0d3255bfef95601890afd80709",
      createHash("sha256")
        .update(Buffer.from([0xc3, 0xa9]))
        .digest("hex"),
    ]);
    expect(prints('load("hash.star", "hash")\nhash.md5(1)')).toEqual([
      "error: hash.md5: for parameter 1: got int, want string",
    ]);
  });

  it("encoding/yaml.star: loads reads YAML 1.1 as yaml.v2 (yes is True), dumps writes sorted, unindented sequences", () => {
    const src = `load("encoding/yaml.star", "yaml")
d = yaml.loads("""
a: yes
b: [1, 2.0, "x"]
c: é
""")
print(d["a"], d["b"], len(d["c"]))
print(yaml.dumps({"martin": {"name": "Martin D'vloper", "job": "Developer"}, "list": ["Apple", "yes"], "n10": 1, "n9": 2}))
print(yaml.dumps("x", 1))`;
    expect(prints(src)).toEqual([
      'True [1, 2.0, "x"] 2',
      'list:\n- Apple\n- "yes"\nmartin:\n  job: Developer\n  name: Martin D\'vloper\nn9: 2\nn10: 1\n',
      "x\n---\n1\n",
    ]);
  });

  it("refuses modules porchlight does not provide (network, clock, ...) with a clear error", () => {
    expect(prints('load("http.star", "http")')).toEqual([
      "error: cannot load http.star: module not supported by porchlight's starlark function",
    ]);
  });
});

describe("math.star (go.starlark.net/lib/math)", () => {
  it("takes ints or floats and returns floats", () => {
    expect(
      prints(
        'load("math.star", "math")\nprint(math.ceil(1.2), math.floor(-1.5), math.round(2.5), math.round(-2.5), math.sqrt(16), math.hypot(3, 4))\nprint(math.pi, math.degrees(math.pi))',
      ),
    ).toEqual(["2.0 -2.0 3.0 -3.0 4.0 5.0", "3.141592653589793 180.0"]);
    expect(prints('load("math.star", "math")\nmath.sqrt("4")')).toEqual([
      "error: sqrt: for parameter 1: got string, want a float or an int",
    ]);
  });
});

describe("ctx", () => {
  it("says ctx.open_api is not available instead of failing on a missing key", () => {
    expect(prints('print(type(ctx.open_api))\nx = ctx.open_api["definitions"]')).toEqual([
      "dict",
      "error: ctx.open_api is not available in porchlight's starlark function (it does not ship kyaml's Kubernetes OpenAPI schema)",
    ]);
  });

  it("gives an empty ctx.environment: the bot's environment never reaches a script", () => {
    expect(prints("print(ctx.environment)")).toEqual(["{}"]);
  });
});
