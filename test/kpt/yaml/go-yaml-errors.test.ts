import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { YamlError } from "../../../src/kpt/errors.js";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";
import { skipWithoutKpt } from "../../util/kpt.js";

const HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";

/**
 * Broken files and what kpt v1.0.0-beta.56 says about each (`yaml: line N: …`, from go-yaml), as
 * measured with kpt; the last test asks the installed kpt again.
 */
const CASES: { name: string; text: string; kpt: string | undefined }[] = [
  {
    name: "a key that runs onto the next line",
    text: "apiVersion: kpt.dev/v1\nkslsls\n;s;s;s\n",
    kpt: "yaml: line 2: could not find expected ':'",
  },
  {
    name: "a mapping inside a plain value",
    text: `${HEAD}data:\n  a: b\n    c: d\n`,
    kpt: "yaml: line 7: mapping values are not allowed in this context",
  },
  {
    name: "a second `key: ` on one line",
    text: `${HEAD}data:\n  a: b: c\n`,
    kpt: "yaml: line 6: mapping values are not allowed in this context",
  },
  {
    name: "a tab as indentation",
    text: `${HEAD}data:\n\ta: b\n`,
    kpt: "yaml: line 6: found character that cannot start any token",
  },
  {
    name: "a value starting with @",
    text: `${HEAD}data:\n  a: @x\n`,
    kpt: "yaml: line 6: found character that cannot start any token",
  },
  {
    name: "an unclosed double quote",
    text: `${HEAD}data:\n  a: "abc\n`,
    kpt: "yaml: line 6: found unexpected end of stream",
  },
  {
    name: "an unclosed single quote",
    text: `${HEAD}data:\n  a: 'abc\n`,
    kpt: "yaml: line 6: found unexpected end of stream",
  },
  {
    name: "an unclosed flow sequence",
    text: `${HEAD}data:\n  a: [1, 2\n`,
    kpt: "yaml: line 5: did not find expected ',' or ']'",
  },
  {
    name: "an unclosed flow mapping",
    text: `${HEAD}data:\n  a: {x: 1\n`,
    kpt: "yaml: line 5: did not find expected ',' or '}'",
  },
  {
    name: "a key indented less than its siblings",
    text: `${HEAD}data:\n  a: 1\n b: 2\n`,
    kpt: "yaml: line 6: did not find expected key",
  },
  {
    name: "a key after a list's items",
    text: `${HEAD}data:\n  - a\n  b: c\n`,
    kpt: "yaml: line 5: did not find expected '-' indicator",
  },
  {
    name: "a list item among a mapping's keys",
    text: "apiVersion: v1\nkind: A\n- metadata:\n  name: x\n",
    kpt: "yaml: line 2: did not find expected key",
  },
  {
    name: "an alias with no anchor",
    text: `${HEAD}data:\n  a: *nope\n`,
    kpt: "yaml: unknown anchor 'nope' referenced",
  },
  {
    name: "an error in a file's second document",
    text: `${HEAD}---\n${HEAD}data:\n  a: b\n    c: d\n`,
    kpt: "yaml: line 7: mapping values are not allowed in this context",
  },
  {
    name: "an error on a document's first line",
    text: "apiVersion: a: b\n",
    kpt: "yaml: mapping values are not allowed in this context",
  },
];

function kptDetailOf(text: string): string | undefined {
  try {
    parseYamlFile(text, "r.yaml");
  } catch (e) {
    expect(e).toBeInstanceOf(YamlError);
    // Porchlight's own message names the position and says what to do.
    expect((e as YamlError).message).toMatch(/^r\.yaml:\d+:\d+: invalid YAML: .*; \w.*$/);
    return (e as YamlError).kptDetail;
  }
  throw new Error("parsed");
}

describe("go-yaml's words for a syntax error (kpt's text first, porchlight's position after)", () => {
  it.each(CASES)("$name", ({ text, kpt }) => {
    expect(kptDetailOf(text)).toBe(kpt);
  });

  it("says nothing in go-yaml's words where it cannot be sure of them", () => {
    // A quote pairing across both kinds of quote: go-yaml's answer depends on its scanner's state.
    expect(kptDetailOf(`${HEAD}data:\n  a: "it's\n`)).toBeUndefined();
  });

  it.for(CASES)("kpt says the same: $name", ({ text, kpt }, ctx) => {
    skipWithoutKpt(ctx);
    const dir = mkdtempSync(join(tmpdir(), "pl-yamlerr-"));
    try {
      writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n");
      writeFileSync(join(dir, "r.yaml"), text);
      const r = spawnSync("kpt", ["fn", "render", dir, "-o", "stdout"], { encoding: "utf8" });
      expect(r.stderr).toContain(`MalformedYAMLError: ${kpt}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
