import { z } from "zod";
import { packageVariantSchema } from "./schema.js";
import { packageVariantSetSchema } from "./set-schema.js";

/**
 * The JSON Schema of a variant file document (a PackageVariant or a PackageVariantSet), generated from the
 * zod schemas so editors and the runtime never disagree. Describes what may be written (input side):
 * defaults are shown, not required. Constraints that span fields (exactly one of revision or channel,
 * reserved package-context keys) are checked by porchlight only.
 */
export function variantFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(z.union([packageVariantSchema, packageVariantSetSchema]), {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return {
    ...schema,
    $id: "https://porchlight.dev/schemas/variant-file.json",
    title: "porchlight variant file (.porchlight/variants/*.yaml)",
  };
}
