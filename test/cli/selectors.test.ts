import { describe, expect, it } from "vitest";
import { labelsMatch, parseFieldSelector, parseLabelSelector } from "../../src/cli/selectors.js";

describe("label selectors, in Kubernetes' syntax", () => {
  const labels = { app: "web", tier: "front", "kpt.dev/latest-revision": "true" };
  it.each([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app!=web", false],
    ["app!=db", true],
    ["missing!=x", true],
    ["app in (db, web)", true],
    ["app in (db)", false],
    ["app notin (db,cache)", true],
    ["missing notin (db)", true],
    ["app", true],
    ["!app", false],
    ["!missing", true],
    ["app=web,tier=front", true],
    ["app=web, tier=back", false],
    ["kpt.dev/latest-revision=true", true],
    ["app=", false],
    ["tier in (front,)", true],
  ])("%j selects: %s", (selector, selected) => {
    expect(labelsMatch(parseLabelSelector(selector), labels)).toBe(selected);
  });

  it.each([
    ["app web", "unable to parse requirement: found 'web', expected: in, notin, =, ==, !="],
    ["app in (a", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["app in a", "unable to parse requirement: found 'a', expected: '('"],
    ["!", "unable to parse requirement: found '', expected: identifier"],
    ["=x", "unable to parse requirement: found '=', expected: !, identifier"],
    ["Bad_Prefix/x=1", 'invalid label key "Bad_Prefix/x"'],
    ["app=a b", "unable to parse requirement: found 'b', expected: ','"],
    ["app=-x", 'invalid label value "-x"'],
  ])("refuses %j", (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });
});

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
