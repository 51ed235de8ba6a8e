import { describe, expect, it } from "vitest";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";
import { rewrite } from "./rendered.js";

const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";

describe("a quoted scalar whose continuation lines are not indented past its key", () => {
  it("is read whole, as kpt reads it (generated CRDs hold them), and written as kpt writes it", () => {
    // input and output: kpt v1.0.0-beta.56's `fn render` with no function
    const input = `${HEADER}spec:\n  attrs:\n    description: 'Attrs defines it.\n    The precedence is: a > b\n    here.'\n    other: "x\n  y"\n  n: 1\n`;
    expect(rewrite(input)).toBe(
      `${HEADER}spec:\n  attrs:\n    description: 'Attrs defines it. The precedence is: a > b here.'\n    other: "x y"\n  n: 1\n`,
    );
  });

  it("keeps the file's own lines and columns for what follows it", () => {
    const input = `${HEADER}a: 'one\ntwo'\nb: [1,\n`;
    expect(() => parseYamlFile(input, "x.yaml")).toThrow(/x\.yaml:8:1:/); // the end of the text, after its last line break
  });

  it("names the line of an error further on as the file has it (the first line counted)", () => {
    const input = `${HEADER}a: 'one\ntwo'\nb: {k [1]}\nc: 1\n`;
    expect(() => parseYamlFile(input, "x.yaml")).toThrow(/x\.yaml:7:7:/);
  });

  it("is still refused where no closing quote comes before the document ends", () => {
    const input = `${HEADER}a: 'one\ntwo\n---\nb: 1\n`;
    expect(() => parseYamlFile(input, "x.yaml")).toThrow(/Missing closing 'quote/);
  });
});
