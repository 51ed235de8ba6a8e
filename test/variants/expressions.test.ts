import { describe, expect, it } from "vitest";
import { evaluateExpression } from "../../src/variants/expressions.js";

const env = {
  repoDefault: "cluster-01",
  packageDefault: "basens",
  upstream: { name: "basens", repo: "blueprints", package: "basens", labels: {}, annotations: {} },
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
    ["repository.topics[0]", "prod"],
    // CEL as Porch's cel-go evaluates it: conditionals, comparisons, size(), the standard string functions
    ["repoDefault == 'cluster-01' ? 'prod' : 'dev'", "prod"],
    ["repoDefault.startsWith('cluster-') && !repoDefault.endsWith('-test') ? 'a' : 'b'", "a"],
    ["repoDefault.contains('ster') ? packageDefault : 'x'", "basens"],
    ["repoDefault.matches('^cluster-[0-9]+$') ? 'numbered' : 'named'", "numbered"],
    ["size(repoDefault) > 8 ? 'long' : 'short'", "long"],
    ["string(size(repository.topics))", "1"],
    ["'prod' in repository.topics ? 'prod' : 'dev'", "prod"],
    ["'zone' in repository.labels ? repository.labels.zone : 'none'", "none"],
    ["has(repository.labels.region) ? repository.labels.region : 'none'", "us-east1"],
    ["repository.topics.exists(t, t.startsWith('pro')) ? 'y' : 'n'", "y"],
    ["repository.topics.map(t, t + '-x')[0]", "prod-x"],
    ["upstream.repo + '/' + upstream.name", "blueprints/basens"],
    ["// a comment\n'commented'", "commented"],
    ["'''triple \"quoted\"'''", 'triple "quoted"'],
  ])("evaluates %s", (expr, expected) => {
    expect(evaluateExpression(expr, env)).toBe(expected);
  });

  it.each([
    ["size(repoDefault)", /must give a string, not an int \(10\); string\(…\) turns it into one/],
    ["size(repoDefault) > 3", /must give a string, not a bool \(true\)/],
    ["repoDefault == 'x'", /must give a string, not a bool \(false\)/],
    ["repository.labels['zone']", /^no such key: zone, at column 18: repository.labels\["zone"\]$/],
    [
      "cluster",
      /^undeclared reference to "cluster" \(the variables here: repoDefault, packageDefault, upstream/,
    ],
    ["cluster.name + 'x'", /^undeclared reference to "cluster"/],
    ["repository.labels", /must give a string, not a map/],
    ["repository.topics", /must give a string, not a list/],
    ["'open", /^unterminated string starting at column 1$/],
    ["repoDefault + 'open", /^unterminated string starting at column 15$/],
    ["repository.topics[1]", /index 1 out of bounds/],
    ["repository.topics[repoDefault]", /no such key: cluster-01/],
    ["repoDefault + 1", /no matching overload for '_\+_' applied to '\(string, int\)', at column 13/],
    // Porch's environment has no extension library (strings' lowerAscii, replace, split …)
    ["repoDefault.lowerAscii()", /^no function lowerAscii\(\): CEL's standard functions are there/],
    ["1 +", /^syntax error at column 3/],
  ])("refuses %s", (expr, message) => {
    expect(() => evaluateExpression(expr, env)).toThrow(message);
  });

  describe("bounds, for expressions written by anyone who can push", () => {
    it.each([
      [
        "a huge expression",
        `${"'a' + ".repeat(100_000)}'a'`,
        /^is 600003 characters long; expressions of at most 1024/,
      ],
      ["a deep tree", `${Array(150).fill("'a'").join(" + ")}`, /^is nested more than 100 deep/],
      ["deep parentheses", `${"(".repeat(500)}'a'${")".repeat(500)}`, /^is nested too deeply to parse$/],
      ["deep lists", `${"[".repeat(500)}${"]".repeat(500)}`, /^is nested too deeply to parse$/],
      // one comprehension over what another made could double it each time: refused
      [
        "a comprehension over another's result",
        "[['a']].map(l, l + l)[0].map(x, x)[0]",
        /^has a comprehension .* inside another, at column 8: \[\["a"\]\]\.map\(l, l \+ l\)/,
      ],
      [
        "nested comprehensions",
        "repository.topics.map(a, repository.topics.map(b, a + b))[0][0]",
        /inside another/,
      ],
      ["a chain of comprehensions", `['a']${".map(s, s + s)".repeat(40)}[0]`, /inside another/],
    ])("refuses %s", (_, expr, message) => {
      const started = performance.now();
      expect(() => evaluateExpression(expr, env)).toThrow(message);
      expect(performance.now() - started).toBeLessThan(2_000);
    });

    it("evaluates the largest comprehension it takes in well under a second", () => {
      const list = `[${Array(240).fill("0").join(",")}]`;
      const expr = `${list}.all(x, ${Array(60).fill("x").join(" + ")} == 0) ? 'all zero' : 'not'`;
      expect(expr.length).toBeLessThanOrEqual(1024);
      const started = performance.now();
      expect(evaluateExpression(expr, env)).toBe("all zero");
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  });
});
