import { describe, expect, it } from "vitest";
import { applyVariantMutations } from "../../../src/variants/mutations.js";
import type { PackageVariant } from "../../../src/variants/schema.js";
import { onlyVariant, PRR_CONTEXT, PRR_KPTFILE } from "./fixtures.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariants/pkg/controllers/packagevariant/packagevariant_controller_test.go
 * TestEnsurePackageContext and its -with-workspacename twin TestEnsurePackageContextWS (the same cases,
 * the upstream named by `workspaceName: v1`). Porch compares the PackageRevisionResources' files as text:
 * so does each row, package-context.yaml byte for byte.
 */

const KPTFILE = PRR_KPTFILE;
const CONTEXT = PRR_CONTEXT;

function variant(upstream: string, spec: string): PackageVariant {
  return onlyVariant(
    `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: my-pv\nspec:\n  upstream:\n    repo: blueprints\n    package: foo\n    ${upstream}\n  downstream:\n    repo: deployments\n    package: bar\n${spec}`,
  );
}

const rows: { go: string; spec: string; initial: string; expected: string }[] = [
  { go: "empty package context", spec: "", initial: "", expected: "" },
  {
    go: "add one entry",
    spec: "  packageContext:\n    data:\n      foo: bar\n",
    initial: "",
    expected: "  foo: bar\n",
  },
  {
    go: "add two entries",
    spec: "  packageContext:\n    data:\n      foo: bar\n      foobar: barfoo\n",
    initial: "",
    expected: "  foo: bar\n  foobar: barfoo\n",
  },
  {
    go: "add one with existing",
    spec: "  packageContext:\n    data:\n      foo: bar\n",
    initial: "  hello: there\n",
    expected: "  hello: there\n  foo: bar\n",
  },
  {
    go: "change existing",
    spec: "  packageContext:\n    data:\n      foo: bar\n",
    initial: "  foo: there\n",
    expected: "  foo: bar\n",
  },
  {
    go: "remove one entry",
    spec: "  packageContext:\n    removeKeys:\n    - hello\n",
    initial: "  hello: there\n",
    expected: "",
  },
  {
    go: "remove entry, leave existing",
    spec: "  packageContext:\n    removeKeys:\n    - hello\n",
    initial: "  hello: there\n  foo: bar\n",
    expected: "  foo: bar\n",
  },
  {
    go: "remove and add entries",
    spec: "  packageContext:\n    data:\n      foobar: barfoo\n      there: hello\n    removeKeys:\n    - hello\n",
    initial: "  hello: there\n  foo: bar\n",
    expected: "  foo: bar\n  foobar: barfoo\n  there: hello\n",
  },
];

describe.each([
  ["TestEnsurePackageContext", "revision: 1"],
  ["TestEnsurePackageContextWS", "workspaceName: v1"],
])("Porch %s", (_test, upstream) => {
  it.each(rows)("$go", ({ spec, initial, expected }) => {
    const files = new Map([
      ["Kptfile", KPTFILE],
      ["package-context.yaml", CONTEXT + initial],
    ]);
    const out = applyVariantMutations(files, variant(upstream, spec));
    expect(out.files.get("package-context.yaml")).toBe(CONTEXT + expected);
  });
});
