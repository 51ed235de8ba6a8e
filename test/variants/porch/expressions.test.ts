import { describe, expect, it } from "vitest";
import { type ExprEnv, evaluateExpression } from "../../../src/variants/expressions.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariantsets/pkg/controllers/packagevariantset/render_test.go TestEvalExpr. The
 * repository target is the Go case's Repository object as Porch's objectToInput gives it (name,
 * namespace, labels, annotations). An error passes when it starts with Porch's message: porchlight then
 * says where in the expression (`, at column 20: …`). Two rows differ on purpose: cel-go's multi-line
 * parser report with carets is not reproduced; porchlight names the variables there are, and the column.
 */

const base = { repoDefault: "foo-repo", packageDefault: "bar-package" };
const r1 = { name: "my-repo-1", namespace: "", labels: { foo: "bar", abc: "def" }, annotations: {} };

const rows: {
  go: string;
  expr: string;
  target?: ExprEnv[string];
  result?: string;
  error?: string;
  deviation?: string;
}[] = [
  { go: "no vars", expr: "'foo'", result: "foo" },
  { go: "repoDefault", expr: "repoDefault", result: "foo-repo" },
  { go: "packageDefault", expr: "packageDefault", result: "bar-package" },
  { go: "concat defaults", expr: "packageDefault + '-' + repoDefault", result: "bar-package-foo-repo" },
  {
    go: "repositories target",
    expr: "target.repo + '/' + target.package",
    target: { repo: "my-repo", package: "my-package" },
    result: "my-repo/my-package",
  },
  {
    go: "repository target",
    expr: "target.name + '/' + target.labels['foo']",
    target: r1,
    result: "my-repo-1/bar",
  },
  {
    go: "bad variable",
    expr: "badvar",
    error: "ERROR: <input>:1:1: undeclared reference to 'badvar' (in container '')\n | badvar\n | ^",
    deviation: 'porchlight says `undeclared reference to "badvar" (the variables here: …)` and where',
  },
  {
    go: "bad expr",
    expr: "/",
    error: "ERROR: <input>:1:1: Syntax error: mismatched input '/'",
    deviation: "porchlight says `syntax error at column 1: …` in @bufbuild/cel's words",
  },
  {
    go: "missing label",
    expr: "target.name + '/' + target.labels['no-such-label']",
    target: r1,
    error: "no such key: no-such-label",
  },
];

const run = (expr: string, target: ExprEnv[string] | undefined) => () =>
  evaluateExpression(expr, { ...base, ...(target ? { target } : {}) });

describe("Porch TestEvalExpr", () => {
  it.each(rows.filter((r) => !r.deviation))("$go", ({ expr, target, result, error }) => {
    if (error === undefined) expect(run(expr, target)()).toBe(result);
    else expect(run(expr, target)).toThrow(new RegExp(`^${error.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  });
  it.each(rows.filter((r) => r.deviation))(
    "$go (deliberate deviation: $deviation)",
    ({ expr, target, error }) => {
      expect(run(expr, target)).toThrow();
      expect(() => run(expr, target)()).not.toThrow(error);
    },
  );
});
