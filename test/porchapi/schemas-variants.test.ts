import { describe, expect, it } from "vitest";
import { z } from "zod";
import { schemaOf } from "../../src/porchapi/openapi.js";
import { packageVariantSchema } from "../../src/variants/schema.js";
import { packageVariantSetSchema } from "../../src/variants/set-schema.js";

type Json = Record<string, unknown>;

/**
 * Every field path below `spec` a JSON Schema (or an OpenAPI schema of the API's) has: `spec.upstream.repo`,
 * `spec.targets[].template.labels`. Maps of any key and preserved-unknown objects end a path.
 */
function fieldPaths(
  schema: Json,
  at: string,
  lookup: (ref: string) => Json | undefined,
  out: Set<string>,
): void {
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const target = lookup(ref);
    if (target) fieldPaths(target, at, lookup, out);
    return;
  }
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches) fieldPaths(b as Json, at, lookup, out);
  }
  const items = schema.items;
  if (typeof items === "object" && items !== null) fieldPaths(items as Json, `${at}[]`, lookup, out);
  const props = schema.properties;
  if (typeof props !== "object" || props === null) return;
  for (const [k, v] of Object.entries(props as Record<string, Json>)) {
    const path = at ? `${at}.${k}` : k;
    if (path.startsWith("spec")) out.add(path);
    if (path === "spec" || path.startsWith("spec.")) fieldPaths(v, path, lookup, out);
  }
}

const zodPaths = (schema: z.ZodType) => {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  const defs = (json.$defs ?? {}) as Record<string, Json>;
  const out = new Set<string>();
  fieldPaths(json, "", (ref) => defs[ref.replace("#/$defs/", "")], out);
  return [...out].sort();
};

const apiPaths = (name: string) => {
  const out = new Set<string>();
  fieldPaths(schemaOf(name) ?? {}, "", (ref) => schemaOf(ref.replace("#/components/schemas/", "")), out);
  return [...out].sort();
};

/**
 * The API's schemas of the two kinds (what kubectl explain shows and strict field validation accepts) have
 * the fields src/variants' parser reads, no more and no fewer: a field added to one and not the other
 * would be refused by kubectl apply, or accepted by the API and then refused by the parser.
 */
describe("the API's PackageVariant(Set) schemas and src/variants' parser", () => {
  it("name the same spec fields of a PackageVariant", () => {
    expect(apiPaths("dev.kpt.porch.config.v1alpha1.PackageVariant")).toEqual(zodPaths(packageVariantSchema));
  });
  it("name the same spec fields of a PackageVariantSet", () => {
    expect(apiPaths("dev.kpt.porch.config.v1alpha2.PackageVariantSet")).toEqual(
      zodPaths(packageVariantSetSchema),
    );
  });
});
