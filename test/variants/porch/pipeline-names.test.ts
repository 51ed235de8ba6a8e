import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyVariantMutations } from "../../../src/variants/mutations.js";
import { parseVariantFile } from "../../../src/variants/parse.js";
import type { PackageVariant } from "../../../src/variants/schema.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariants/pkg/controllers/packagevariant/packagevariant_controller_test.go
 * TestGeneratePVFuncName and TestIsPackageVariantFunc, and their -with-workspacename twins (the same
 * cases). Porch tests the two helpers; here each case goes through what they serve — the names of the
 * functions a variant prepends to the downstream Kptfile, and which functions a re-run takes for its own
 * (replaced) or leaves (someone else's).
 */

function variant(name: string, upstream: string, pipeline = ""): PackageVariant {
  const { variants, problems } = parseVariantFile(
    "pv.yaml",
    `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\nspec:\n  upstream: {repo: blueprints, package: foo, ${upstream}}\n  downstream: {repo: deployments, package: bar}\n${pipeline}`,
  );
  expect(problems).toEqual([]);
  return (variants[0] as { variant: PackageVariant }).variant;
}

const kptfile = (mutators: string) =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: bar\npipeline:\n  mutators:\n${mutators}`;

/** The names of the downstream Kptfile's mutators after the variant is applied. */
function mutatorNames(v: PackageVariant, mutators: string): unknown[] {
  const out = applyVariantMutations(new Map([["Kptfile", kptfile(mutators)]]), v);
  const doc = parse(out.files.get("Kptfile") ?? "") as { pipeline?: { mutators?: { name?: unknown }[] } };
  return (doc.pipeline?.mutators ?? []).map((m) => m.name);
}

describe.each([
  ["", "revision: 1"],
  ["WS", "workspaceName: v1"],
])("Porch TestGeneratePVFuncName%s", (_ws, upstream) => {
  it("regular func", () => {
    const fns = [0, 1, 2, 3].map(
      (i) => `    - image: img-${i}\n      name: ${i === 3 ? "my-func" : `f${i}`}\n`,
    );
    const v = variant("my-pv", upstream, `  pipeline:\n    mutators:\n${fns.join("")}`);
    expect(mutatorNames(v, "  - image: theirs\n")[3]).toBe("PackageVariant.my-pv.my-func.3");
  });
  it("empty func name", () => {
    const v = variant("my-pv", upstream, "  pipeline:\n    mutators:\n    - image: img\n");
    expect(mutatorNames(v, "  - image: theirs\n")[0]).toBe("PackageVariant.my-pv..0");
  });
});

const isOwn: [string, string, string, boolean][] = [
  ["valid func name", "name: PackageVariant.my-pv.my-func.0", "my-pv", true],
  ["field name is missing", "otherkey: PackageVariant.my-pv.my-func.0", "my-pv", false],
  ["additional dots", "name: PackageVariant.too.many.dots.0", "too", false],
  ["not enough dots", "name: PackageVariant.not-enough.dots", "not-enough", false],
  ["no PackageVariantPrefix", "name: noprefix.my-pv.my-func.0", "my-pv", false],
  ["pv-name mismatch", "name: PackageVariant.my-pv.my-func.0", "actually-a-different-pv", false],
  ["empty func name", "name: PackageVariant.my-pv..0", "my-pv", true],
  ["positional location is not an int", "name: PackageVariant.my-pv.my-func.str", "my-pv", false],
];

describe.each([
  ["", "revision: 1"],
  ["WS", "workspaceName: v1"],
])("Porch TestIsPackageVariantFunc%s", (_ws, upstream) => {
  // A variant with no pipeline takes its own functions out and leaves every other one.
  it.each(isOwn)("%s", (_go, field, pvName, own) => {
    const names = mutatorNames(variant(pvName, upstream), `  - image: theirs\n    ${field}\n`);
    expect(names.length).toBe(own ? 0 : 1);
  });
});
