import { parse } from "semver";
import { describe, expect, it } from "vitest";
import { parseSkipRange } from "../../src/catalog/skip-range.js";

/** The versions of 0.9.0 … 5.0.0 (and pre-releases) a range covers, as operator-registry's blang/semver reads it. */
const VERSIONS = ["0.9.0", "1.0.0", "1.2.3", "1.9.9", "2.0.0-rc.1", "2.0.0", "3.0.0", "5.0.0"];
function covered(range: string): string[] {
  const parsed = parseSkipRange(range);
  if (!parsed.ok) throw new Error(parsed.reason);
  return VERSIONS.filter((v) => parsed.range(parse(v) ?? (undefined as never)));
}

describe("skipRange, in operator-registry's grammar (blang/semver), not npm's", () => {
  it.each([
    [">=1.0.0 <2.0.0", ["1.0.0", "1.2.3", "1.9.9", "2.0.0-rc.1"]],
    [">= 1.0.0 < 2.0.0", ["1.0.0", "1.2.3", "1.9.9", "2.0.0-rc.1"]],
    ["< 0.6.0", []],
    ["<1.0.0 || >=3.0.0", ["0.9.0", "3.0.0", "5.0.0"]],
    ["!=1.0.0 <2.0.0", ["0.9.0", "1.2.3", "1.9.9", "2.0.0-rc.1"]],
    ["1.2.3", ["1.2.3"]],
    ["=3.0.0", ["3.0.0"]],
    // A wildcard is the span blang expands it to: 1.x is >=1.0.0 <2.0.0, pre-releases of 2.0.0 included.
    ["1.x", ["1.0.0", "1.2.3", "1.9.9", "2.0.0-rc.1"]],
    [">1.x", ["2.0.0", "3.0.0", "5.0.0"]],
    ["<=1.2.x", ["0.9.0", "1.0.0", "1.2.3"]],
  ])("%s covers %j", (range, versions) => {
    expect(covered(range)).toEqual(versions);
  });

  it.each([
    [">v0.1.0", '">v" in ">v0.1.0" is not a comparison'],
    [">1.00.1", '"1.00.1" in ">1.00.1" is not a version'],
    ["<2", '"2" in "<2" is not a version'],
    ["~1.2.0", '"~" in "~1.2.0" is not a comparison'],
    ["^1.0.0", '"^" in "^1.0.0" is not a comparison'],
    ["1.0.0 - 2.0.0", '"-" names no version'],
    ["|| 1.0.0", "it starts with ||"],
    ["1.0.0 ||", "it ends with ||"],
    ["", "it is empty"],
  ])("refuses %j, which npm would read otherwise or not at all", (range, reason) => {
    const parsed = parseSkipRange(range);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.reason).toContain(reason);
  });
});
