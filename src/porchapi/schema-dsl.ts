/**
 * The few shapes the API's schemas are written in: OpenAPI v3 schema objects (JSON Schema's subset
 * Kubernetes uses), with references written as `#/components/schemas/NAME` (openapi.ts rewrites them for
 * OpenAPI v2's `#/definitions/NAME`).
 */
export type Schema = Record<string, unknown>;

const REF = "#/components/schemas/";

export const str = (description: string, extra: Schema = {}): Schema => ({
  type: "string",
  description,
  ...extra,
});
export const int = (description: string): Schema => ({ type: "integer", format: "int32", description });
export const bool = (description: string): Schema => ({ type: "boolean", description });
export const strMap = (description: string): Schema => ({
  type: "object",
  description,
  additionalProperties: { type: "string", default: "" },
});
export const arr = (items: Schema, description: string): Schema => ({ type: "array", description, items });
export const obj = (
  description: string,
  properties: Record<string, Schema>,
  required?: string[],
): Schema => ({
  type: "object",
  description,
  properties,
  ...(required ? { required } : {}),
});
/** Anything (kept as written): the schema says only that it is there. */
export const free = (description: string): Schema => ({
  type: "object",
  description,
  "x-kubernetes-preserve-unknown-fields": true,
});
/** A reference to a named schema, with a description of its own at the place it is used. */
export const ref = (name: string, description?: string): Schema =>
  description === undefined ? { $ref: `${REF}${name}` } : { description, allOf: [{ $ref: `${REF}${name}` }] };

/** The name a schema reference names, or undefined. */
export function refName(schema: Schema): string | undefined {
  const direct = schema.$ref;
  if (typeof direct === "string" && direct.startsWith(REF)) return direct.slice(REF.length);
  const all = schema.allOf;
  if (Array.isArray(all) && all.length === 1) return refName(all[0] as Schema);
  return undefined;
}
