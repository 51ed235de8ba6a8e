import type { SchemaBundle } from "./schema-bundle.js";

/**
 * JSON Schemas (draft-07) from the bundle's type strings, shaped like the kubeconform schema registry's
 * (yannh/kubernetes-json-schema): every field may also be null, int-or-string and resource quantities
 * accept either form, and in strict mode objects with known properties allow no others.
 */

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_ID = "https://porchlight.invalid/kubernetes.json";

const nullable = (type: string): JsonSchema => ({ type: [type, "null"] });

/** The schema of one bundle type string, e.g. `Array<V1Container>` or `number|int32`. */
export function typeSchema(typeString: string, models: SchemaBundle["models"]): JsonSchema {
  const formatted = /^(.*)\|([a-z0-9-]+)$/.exec(typeString);
  const type = formatted?.[1] ?? typeString;
  const format = formatted?.[2] ?? "";
  const withFormat = (inner: string) => (format && !inner.includes("|") ? `${inner}|${format}` : inner);
  const array = /^Array<(.+)>$/.exec(type);
  if (array?.[1]) return { type: ["array", "null"], items: typeSchema(withFormat(array[1]), models) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map?.[1]) {
    return { type: ["object", "null"], additionalProperties: typeSchema(withFormat(map[1]), models) };
  }
  switch (type) {
    case "string":
    case "Date":
      return nullable("string");
    case "number":
      return nullable(format === "int32" || format === "int64" ? "integer" : "number");
    case "boolean":
      return nullable("boolean");
    case "IntOrString":
      return { oneOf: [nullable("string"), nullable("integer")] };
    case "Quantity":
      return { oneOf: [nullable("string"), nullable("number")] };
    case "any":
      return {};
    default:
      return models[type] ? { $ref: `#/definitions/${type}` } : {};
  }
}

/** All models as definitions of one schema document, to compile each kind's model against. */
export function definitionsDocument(bundle: SchemaBundle, strict: boolean): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};
  for (const [name, model] of Object.entries(bundle.models)) {
    const properties: Record<string, JsonSchema> = {};
    for (const [prop, type] of Object.entries(model.props))
      properties[prop] = typeSchema(type, bundle.models);
    const schema: JsonSchema = { type: ["object", "null"], properties };
    if (model.required && model.required.length > 0) schema.required = model.required;
    if (strict && Object.keys(properties).length > 0) schema.additionalProperties = false;
    definitions[name] = schema;
  }
  return { $id: SCHEMA_ID, definitions };
}
