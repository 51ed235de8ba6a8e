import { describe, expect, it } from "vitest";
import { evaluateExpression } from "../../src/variants/expressions.js";

const env = {
  repoDefault: "cluster-01",
  packageDefault: "basens",
  repository: { name: "cluster-01", labels: { region: "us-east1" }, topics: ["prod"] },
  target: { repo: "cluster-01", package: "basens" },
};

describe("evaluateExpression", () => {
  it.each([
    ["'literal'", "literal"],
    ['"double"', "double"],
    ["repoDefault", "cluster-01"],
    ["repository.name + '-' + packageDefault", "cluster-01-basens"],
    ["repository.labels['region'] + '-endpoints'", "us-east1-endpoints"],
    ['(target.package + "-ns")', "basens-ns"],
    ["'it\\'s'", "it's"],
  ])("evaluates %s", (expr, expected) => {
    expect(evaluateExpression(expr, env)).toBe(expected);
  });

  it.each([
    ["size(repoDefault)", /not supported here: function call size/],
    ["size(repoDefault) > 3", /not supported here: ">"/],
    ["repoDefault == 'x'", /not supported here: "="/],
    ["repository.labels['zone']", /no such key: zone/],
    ["cluster", /undeclared reference to "cluster"/],
    ["repository.labels", /must give a string/],
    ["'open", /unterminated string/],
    ["repository.topics[0]", /not supported here: "0"/],
    ["repository.topics[repoDefault]", /only a quoted key/],
  ])("refuses %s", (expr, message) => {
    expect(() => evaluateExpression(expr, env)).toThrow(message);
  });
});
