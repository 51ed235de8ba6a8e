import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";
import { hasKpt } from "../../render/kpt-oracle.js";
import { rendered } from "./rendered.js";

const HEADER = "apiVersion: v1\nkind: A\nmetadata:\n  name: x\n";

/**
 * Keys yaml.v3 writes as no simple key (yaml_emitter_check_simple_key: a collection with entries, a
 * scalar over 128 characters or on more than one line): after `? `, the value after `: ` on the next
 * line in a block mapping, after ` : ` in a flow one; an empty collection stays a simple key. A block
 * collection as a key stays a block. Each case: the input (after a resource's header) and the bytes
 * kpt v1.0.0-beta.56's `fn render` wrote for it with no function (kustomize's template fixtures hold
 * `{{ .Key }}: {{ .Value }}`, a flow mapping as a key; porchlight wrote it `{? {.Key: ''} : ''}: …`).
 * Through a function kpt refuses every collection key (kyaml: "wrong node kind"; a deviation).
 */
const CASES: [string, string, string][] = [
  ["a flow list as a key", "m:\n  [a, b]: 1\n", "m:\n  ? [a, b]\n  : 1\n"],
  ["a flow mapping as a key", "m:\n  {a: 1}: 2\n", "m:\n  ? {a: 1}\n  : 2\n"],
  [
    "a template placeholder as a key",
    "m:\n  {{ .Key }}: {{ .Value }}\n",
    "m:\n  ? {? {.Key: ''} : ''}\n  : {? {.Value: ''} : ''}\n",
  ],
  ["empty collections stay simple keys", "m:\n  []: 1\n  {}: 2\n", "m:\n  []: 1\n  {}: 2\n"],
  [
    "block collections as keys stay blocks, the first entry or item on the `?` line",
    "m:\n  ? a: 1\n    b:\n      c: 2\n    l:\n    - x\n  : 2\n  ? - a\n    - b: 1\n      c: 2\n  : v\n",
    "m:\n  ? a: 1\n    b:\n      c: 2\n    l:\n    - x\n  : 2\n  ? - a\n    - b: 1\n      c: 2\n  : v\n",
  ],
  [
    "in a list item, flow keys with and without an anchor",
    "l:\n- [a]: 1\n  {b: 1}: [x]\n- &k [a]: 1\n",
    "l:\n- ? [a]\n  : 1\n  ? {b: 1}\n  : [x]\n- ? &k [a]\n  : 1\n",
  ],
  [
    "an anchored block list as key and value: alone on the line, the list at the entry's column",
    "l:\n- ? &q\n    - x\n  : &v\n    - y\n",
    "l:\n- ? &q\n  - x\n  : &v\n  - y\n",
  ],
  [
    "in a wide file, anchored or tagged collections below `?` and `:` 2 further",
    "m:\n  ? &a\n    a: 1\n  : &b\n    c: 3\n  ? !t\n    - x\n  : !u\n    - y\nw:\n  - x\n  - ? &r\n      - a\n    : 1\n",
    "m:\n  ? &a\n    a: 1\n  : &b\n    c: 3\n  ? !t\n    - x\n  : !u\n    - y\nw:\n  - x\n  - ? &r\n      - a\n    : 1\n",
  ],
  [
    "a block value after an explicit key starts on the `:` line",
    "m:\n  ? - a\n  : - b\n    - c\n  ? a: 1 # ka\n  : b: 1\n",
    "m:\n  ? - a\n  : - b\n    - c\n  ? a: 1 # ka\n  : b: 1\n",
  ],
  [
    "in a flow mapping: `? key : value` for a collection or a long key, not for an empty collection",
    `m: {${"k".repeat(130)}: 1, {}: 2, []: 3, [a]: 4, &a x: 5}\n`,
    `m: {? ${"k".repeat(130)} : 1, {}: 2, []: 3, ? [a] : 4, &a x: 5}\n`,
  ],
  // The `yaml` parser refused a flow collection as a key after another entry of a nested mapping
  // ("Map comment with trailing content", eemeli/yaml#646): porchlight refused files kpt renders.
  [
    "flow keys after other entries, a blank line or a comment before them, in a list item too",
    "m:\n  a: 1\n\n  [b]: 2\n  # c\n  {c: 1}: 3\nl:\n- n: 1\n  [x, y]: z\n",
    "m:\n  a: 1\n  ? [b]\n  : 2\n  # c\n  ? {c: 1}\n  : 3\nl:\n- n: 1\n  ? [x, y]\n  : z\n",
  ],
];

describe("keys that are no simple key are written after `?`, as yaml.v3 writes them", () => {
  it.each(CASES)("%s", (_name, input, kpt) => {
    expect(rendered(HEADER + input)).toBe(HEADER + kpt);
  });
});

describe.skipIf(!hasKpt)("the cases' expectations are what kpt writes", () => {
  it("matches a kpt fn render with no function", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-keys-"));
    try {
      writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n");
      CASES.forEach(([, input], i) => {
        mkdirSync(join(dir, `c${i}`));
        writeFileSync(join(dir, `c${i}`, "x.yaml"), HEADER + input);
      });
      execFileSync("kpt", ["fn", "render", dir], { stdio: "pipe" });
      CASES.forEach(([name, , kpt], i) => {
        expect(readFileSync(join(dir, `c${i}`, "x.yaml"), "utf8"), name).toBe(HEADER + kpt);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a file read past the `yaml` parser's orphan item keeps its own lines", () => {
  it("names the line and column of a later error as the file holds them", () => {
    expect(() => parseYamlFile("a:\n  b: 1\n  [c]: 2\nd: *nope\n", "x.yaml")).toThrow(
      /^x\.yaml:4:4: invalid YAML: no anchor &nope/,
    );
  });
});
