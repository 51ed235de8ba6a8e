import { refName, type Schema } from "./schema-dsl.js";

/**
 * The fields of an object its schema does not have, as `.spec.foo` paths: what `fieldValidation=Strict`
 * (kubectl's default) refuses and `Warn` reports, as the API server does from the same OpenAPI schemas.
 */
export function unknownFields(
  value: unknown,
  schema: Schema,
  lookup: (name: string) => Schema | undefined,
  at = "",
): string[] {
  const resolved = resolve(schema, lookup);
  if (!resolved || resolved["x-kubernetes-preserve-unknown-fields"] === true) return [];
  if (Array.isArray(value)) {
    const items = resolved.items as Schema | undefined;
    return items ? value.flatMap((v, i) => unknownFields(v, items, lookup, `${at}[${i}]`)) : [];
  }
  if (typeof value !== "object" || value === null) return [];
  const props = resolved.properties as Record<string, Schema> | undefined;
  const extra = resolved.additionalProperties as Schema | undefined;
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const child = props?.[k] ?? (typeof extra === "object" ? extra : undefined);
    if (child) out.push(...unknownFields(v, child, lookup, `${at}.${k}`));
    else if (props) out.push(`${at}.${k}`.replace(/^\./, ""));
  }
  return out;
}

function resolve(schema: Schema, lookup: (name: string) => Schema | undefined): Schema | undefined {
  const name = refName(schema);
  return name === undefined ? schema : lookup(name);
}
