import { describe, expect, it } from "vitest";
import { parseFieldSelector } from "../../src/porch/selectors.js";

describe("field selectors", () => {
  it("reads =, == and != terms, comma-joined, with backslash escapes", () => {
    expect(parseFieldSelector("spec.lifecycle=Published,spec.revision==1,spec.packageName!=a\\,b")).toEqual([
      { field: "spec.lifecycle", op: "=", value: "Published" },
      { field: "spec.revision", op: "=", value: "1" },
      { field: "spec.packageName", op: "!=", value: "a,b" },
    ]);
    expect(parseFieldSelector("")).toEqual([]);
  });

  it.each([
    ["spec.lifecycle", "invalid selector: 'spec.lifecycle'; can't understand 'spec.lifecycle'"],
    ["=x", "'=x' names no field"],
    ["a=1,,b=2", "an empty term"],
  ])("refuses %j", (selector, message) => {
    expect(() => parseFieldSelector(selector)).toThrow(message);
  });
});
