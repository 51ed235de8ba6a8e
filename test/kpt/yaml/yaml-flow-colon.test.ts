import { describe, expect, it } from "vitest";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";
import { rewrite } from "./rendered.js";

const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";

describe("a plain scalar in a flow collection with a `:` that a `,`, `]` or `}` follows", () => {
  // input and output: kpt v1.0.0-beta.56's `fn render` with no function
  it("is read on past the `:`, as yaml.v3 reads it (istio's `[1.2.3.4, 001:db8::]`), not as a mapping", () => {
    const input = `${HEADER}a: [1.2.3.4, 001:db8::]\nb: {a:, c:d, e:}\nc: [x:, y]\nd: {"q":1}\n`;
    expect(rewrite(input)).toBe(
      `${HEADER}a: [1.2.3.4, '001:db8::']\nb: {'a:': '', 'c:d': '', 'e:': ''}\nc: ['x:', y]\nd: {"q": 1}\n`,
    );
  });

  it("still ends at `: `, and a quoted scalar's `:` is still the value's indicator", () => {
    const input = `${HEADER}a: [k: ,b:c:, 'q':, d:e ]\nb: {x:}\nc: [[a:], {b:}]\nd: [ a:  , b ]\n`;
    expect(rewrite(input)).toBe(
      `${HEADER}a: [{k: ''}, 'b:c:', {'q': ''}, 'd:e']\nb: {'x:': ''}\nc: [['a:'], {'b:': ''}]\nd: [{a: ''}, b]\n`,
    );
  });

  it("is refused where a flow collection follows the `:` (yaml.v3: did not find expected ',' or '}')", () => {
    expect(() => parseYamlFile(`${HEADER}a: {k:[1]}\n`, "x.yaml")).toThrow(/x\.yaml:5:7:/);
    expect(() => parseYamlFile(`${HEADER}a: [k:{b: 1}]\n`, "x.yaml")).toThrow(/x\.yaml:5:7:/);
  });

  it("keeps the file's own offsets when a quoted scalar's lines are mended too", () => {
    const input = `${HEADER}a: 'one\ntwo'\nb: [x:, y]\n`;
    expect(rewrite(input)).toBe(`${HEADER}a: 'one two'\nb: ['x:', y]\n`);
  });
});
