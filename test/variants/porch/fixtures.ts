import { expect } from "vitest";
import { parseVariantFile } from "../../../src/variants/parse.js";
import type { PackageVariant } from "../../../src/variants/schema.js";

/** The Kptfile of the package revision (`prr`) Porch's controller tests mutate. */
export const PRR_KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: prr
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: Example
`;

/** A package-context.yaml (the local-config ConfigMap kptfile.kpt.dev) whose data is `data` (YAML lines). */
export const packageContext = (data: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
${data}`;

/** Its package-context.yaml, as Porch's tests write it. */
export const PRR_CONTEXT = packageContext("  name: example\n");

/** The one PackageVariant `text` holds, the test failing on any problem parsing it. */
export function onlyVariant(text: string): PackageVariant {
  const { variants, problems } = parseVariantFile("pv.yaml", text);
  expect(problems).toEqual([]);
  return (variants[0] as { variant: PackageVariant }).variant;
}
