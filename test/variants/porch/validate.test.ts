import { describe, expect, it } from "vitest";
import { parseVariantFile } from "../../../src/variants/parse.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariants/pkg/controllers/packagevariant/packagevariant_controller_test.go
 * TestValidatePackageVariant, its -with-workspacename twin TestValidatePackageVariantWS, and
 * controllers/packagevariantsets/pkg/controllers/packagevariantset/validate_test.go
 * TestValidatePackageVariantSet. Each row is a Go case by name; its input is the case's YAML with the
 * apiVersion the kind has (Porch's test unmarshals into the Go type and never reads `apiVersion:
 * config.porch.kpt.dev`, which names no version), and its expected messages are Porch's, joined as
 * Porch's combineErrors joins them. A row marked `deviation` gives another answer on purpose (see
 * docs/variants.md, "Porch's controller tests").
 */

const PV = "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: my-pv";
const PVS = "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: my-pv";

/** The messages of a document's problems, in order: what Porch's combined error lists. */
function messages(text: string): string[] {
  return parseVariantFile("pv.yaml", text).problems.map((p) => p.message);
}

type Row = { go: string; yaml: string; expected: string[]; deviation?: string };

/** TestValidatePackageVariant's cases; `up` is the upstream's revision line of the Go case. */
function pvCases(up: string): Row[] {
  const spec = (extra = "") =>
    `${PV}\nspec:\n  upstream:\n    package: foo\n    ${up}\n    repo: blueprints\n  downstream:\n    package: foo\n    repo: deployments\n${extra}`;
  return [
    {
      go: "empty spec",
      yaml: PV,
      expected: ["missing required field spec.upstream", "missing required field spec.downstream"],
    },
    {
      go: "missing package names",
      yaml: `${PV}\nspec:\n  upstream:\n    ${up}\n    repo: blueprints\n  downstream:\n    repo: deployments\n`,
      expected: [
        "missing required field spec.upstream.package",
        "missing required field spec.downstream.package",
      ],
    },
    { go: "empty adoption and deletion policies", yaml: spec(), expected: [] },
    {
      go: "invalid adoption and deletion policies",
      yaml: spec("  adoptionPolicy: invalid\n  deletionPolicy: invalid\n"),
      expected: [
        'spec.adoptionPolicy field can only be "adoptNone" or "adoptExisting"',
        'spec.deletionPolicy can only be "orphan" or "delete"',
      ],
    },
    {
      go: "valid adoption and deletion policies",
      yaml: spec("  adoptionPolicy: adoptExisting\n  deletionPolicy: orphan\n"),
      expected: [],
    },
    {
      go: "validate package context",
      yaml: spec(
        "  packageContext:\n    data:\n      foo: bar\n      hello: there\n    removeKeys:\n    - bar\n    - foobar\n",
      ),
      expected: [],
    },
    {
      go: "name in package context data",
      yaml: spec("  packageContext:\n    data:\n      name: test\n"),
      expected: ['spec.packageContext.data: Invalid value: {"name":"test"}: must not contain the key "name"'],
    },
    {
      go: "name in package context removeKeys",
      yaml: spec("  packageContext:\n    removeKeys:\n    - name\n"),
      expected: ['spec.packageContext.removeKeys: Invalid value: ["name"]: must not contain the key "name"'],
    },
    {
      go: "package-path in package context data",
      yaml: spec("  packageContext:\n    data:\n      package-path: test\n"),
      expected: [
        'spec.packageContext.data: Invalid value: {"package-path":"test"}: must not contain the key "package-path"',
      ],
    },
    {
      go: "package-path in package context removeKeys",
      yaml: spec("  packageContext:\n    removeKeys:\n    - package-path\n"),
      expected: [
        'spec.packageContext.removeKeys: Invalid value: ["package-path"]: must not contain the key "package-path"',
      ],
    },
    {
      go: "valid injectors",
      yaml: spec(
        "  injectors:\n  - group: porch.kpt.dev\n    version: v1alpha1\n    kind: Repository\n    name: foo\n  - name: bar\n",
      ),
      expected: [],
    },
    {
      go: "invalid injectors",
      yaml: spec(
        '  injectors:\n  - group: porch.kpt.dev\n    version: v1alpha1\n    kind: Repository\n    name: foo\n  - name: ""\n',
      ),
      expected: ["spec.injectors[1].name must not be empty"],
    },
  ];
}

const pvsCases: Row[] = [
  {
    go: "empty spec",
    yaml: PVS,
    expected: ["spec.upstream is a required field", "must specify at least one item in spec.targets"],
  },
  {
    go: "missing upstream package",
    yaml: `${PVS}\nspec:\n  upstream:\n    repo: foo\n    revision: 1`,
    expected: ["spec.upstream.package is a required field", "must specify at least one item in spec.targets"],
  },
  {
    go: "missing upstream repo",
    yaml: `${PVS}\nspec:\n  upstream:\n    package: foopkg\n    revision: 3`,
    expected: ["spec.upstream.repo is a required field", "must specify at least one item in spec.targets"],
  },
  {
    go: "missing upstream revision",
    yaml: `${PVS}\nspec:\n  upstream:\n    repo: foo\n    package: foopkg`,
    expected: [
      "either spec.upstream.revision or spec.upstream.workspaceName must be specified",
      "must specify at least one item in spec.targets",
    ],
  },
  {
    go: "invalid targets",
    yaml: `${PVS}\nspec:\n  targets:\n  - repositories:\n    - name: ""\n  - repositories:\n    - name: bar\n    repositorySelector:\n      foo: bar\n  - repositories:\n    - name: bar\n      packageNames:\n      - ""\n      - foo\n`,
    expected: [
      "spec.upstream is a required field",
      "spec.targets[0].repositories[0].name cannot be empty",
      "spec.targets[1] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      "spec.targets[2].repositories[0].packageNames[0] cannot be empty",
    ],
    deviation:
      "`repositorySelector: {foo: bar}`: Go's decoder drops the unknown field `foo`; porchlight names it (unknown fields are errors, a misspelling is never silently ignored)",
  },
  {
    go: "invalid adoption and deletion policies",
    yaml: `${PVS}\nspec:\n  targets:\n  - template:\n      adoptionPolicy: invalid\n      deletionPolicy: invalid\n`,
    expected: [
      "spec.upstream is a required field",
      "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      'spec.targets[0].template.adoptionPolicy can only be "adoptNone" or "adoptExisting"',
      'spec.targets[0].template.deletionPolicy can only be "orphan" or "delete"',
    ],
  },
  {
    go: "valid adoption and deletion policies",
    yaml: `${PVS}\nspec:\n  adoptionPolicy: adoptExisting\n  deletionPolicy: orphan\n`,
    expected: ["spec.upstream is a required field", "must specify at least one item in spec.targets"],
    deviation:
      "a set has no spec.adoptionPolicy or spec.deletionPolicy (they belong in a target's template): Go's decoder drops them, porchlight names them as unknown fields",
  },
  {
    go: "downstream values and expressions do not mix",
    yaml: `${PVS}\nspec:\n  targets:\n  - template:\n      downstream:\n        repo: "foo"\n        repoExpr: "'bar'"\n        package: "p"\n        packageExpr: "'p'"\n`,
    expected: [
      "spec.upstream is a required field",
      "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      "spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`",
      "spec.targets[0].template may specify only one of `downstream.package` and `downstream.packageExpr`",
    ],
  },
  {
    go: "MapExprs do not allow both expr-and non-expr for same field",
    yaml: `${PVS}\nspec:\n  targets:\n  - template:\n      labelExprs:\n      - key: "foo"\n        keyExpr: "'bar'"\n        value: "bar"\n      - key: "foo"\n        value: "bar"\n        valueExpr: "'bar'"\n      annotationExprs:\n      - key: "foo"\n        keyExpr: "'bar'"\n        value: "bar"\n      - key: "foo"\n        value: "bar"\n        valueExpr: "'bar'"\n      packageContext:\n        dataExprs:\n          - key: "foo"\n            keyExpr: "'bar'"\n            value: "bar"\n          - key: "foo"\n            value: "bar"\n            valueExpr: "'bar'"\n`,
    expected: [
      "spec.upstream is a required field",
      "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      "spec.targets[0].template.labelExprs[0] may specify only one of `key` and `keyExpr`",
      "spec.targets[0].template.labelExprs[1] may specify only one of `value` and `valueExpr`",
      "spec.targets[0].template.annotationExprs[0] may specify only one of `key` and `keyExpr`",
      "spec.targets[0].template.annotationExprs[1] may specify only one of `value` and `valueExpr`",
      "spec.targets[0].template.packageContext.dataExprs[0] may specify only one of `key` and `keyExpr`",
      "spec.targets[0].template.packageContext.dataExprs[1] may specify only one of `value` and `valueExpr`",
    ],
  },
  {
    go: "injectors must specify exactly one of name or nameexpr",
    yaml: `${PVS}\nspec:\n  targets:\n  - repositories:\n    - name: bar\n    template:\n      injectors:\n      - name: foo\n        nameExpr: bar\n      - group: foo\n`,
    expected: [
      "spec.upstream is a required field",
      "spec.targets[0].template.injectors[0] may specify only one of `name` and `nameExpr`",
      "spec.targets[0].template.injectors[1] must specify either `name` or `nameExpr`",
    ],
  },
  {
    go: "pipeline function must be valid",
    yaml: `${PVS}\nspec:\n  targets:\n  - repositories:\n    - name: bar\n    template:\n      pipeline:\n        validators:\n        - name: foo\n        - image: foo\n          name: bar\n        mutators:\n        - name: foo.bar\n          image: bar\n`,
    expected: [
      "spec.upstream is a required field",
      "spec.targets[0].template.pipeline.validators[0].image must not be empty",
      "spec.targets[0].template.pipeline.mutators[0].name must not contain '.'",
    ],
  },
];

const tables: [string, Row[]][] = [
  ["TestValidatePackageVariant", pvCases("revision: 1")],
  ["TestValidatePackageVariantWS", pvCases("workspaceName: v1")],
  ["TestValidatePackageVariantSet", pvsCases],
];

describe.each(tables)("Porch %s", (_test, rows) => {
  it.each(rows.filter((r) => !r.deviation))("$go", ({ yaml, expected }) => {
    expect(messages(yaml)).toEqual(expected);
  });
  const deviations = rows.filter((r) => r.deviation);
  if (deviations.length)
    it.each(deviations)("$go (deliberate deviation: $deviation)", ({ yaml, expected }) => {
      expect(messages(yaml)).not.toEqual(expected);
    });
});
