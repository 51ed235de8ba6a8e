import { describe, expect, it } from "vitest";
import { applyVariantMutations } from "../../../src/variants/mutations.js";
import { parseVariantFile } from "../../../src/variants/parse.js";
import type { PackageVariant } from "../../../src/variants/schema.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariants/pkg/controllers/packagevariant/injection_test.go (and its
 * -with-workspacename twin, whose cases are the same) TestFindInjectionPoints. Porch's test builds a
 * PackageRevisionResources of a Kptfile, package-context.yaml and the case's files; here those are the
 * package's files, and the variant is applied to them.
 */

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: prr
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: Example
`;
const CONTEXT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  name: example
`;

function variant(): PackageVariant {
  const { variants } = parseVariantFile(
    "pv.yaml",
    "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: my-pv}\nspec:\n  upstream: {repo: blueprints, package: foo, revision: 1}\n  downstream: {repo: deployments, package: foo}\n",
  );
  return (variants[0] as { variant: PackageVariant }).variant;
}

const apply = (files: Record<string, string>) =>
  applyVariantMutations(
    new Map(Object.entries({ Kptfile: KPTFILE, "package-context.yaml": CONTEXT, ...files })),
    variant(),
  );

describe.each(["TestFindInjectionPoints", "TestFindInjectionPoints (injection-with-workspacename_test.go)"])(
  "Porch %s",
  () => {
    it("parse error", () => {
      expect(() => apply({ "junk.yaml": "baddata" })).toThrow(
        "junk.yaml: failed to extract objects: unhandled node kind 8",
      );
    });

    it("no injection points", () => {
      expect(apply({}).injection).toEqual([]);
    });

    it("one optional injection point", () => {
      const file = `apiVersion: v1
kind: ConfigMap
metadata:
  name: foo
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: optional
data:
  foo: bar
`;
      expect(apply({ "file.yaml": file }).injection).toEqual([
        expect.objectContaining({
          file: "file.yaml",
          required: false,
          conditionType: "config.injection.ConfigMap.foo",
        }),
      ]);
    });
  },
);
