import { refName, type Schema } from "./schema-dsl.js";
import { ApiError } from "./status.js";

/** The object with the fields its schema does not have taken out, and their paths (`spec.foo`). */
interface Pruned {
  value: unknown;
  unknown: string[];
}

/**
 * The object as its schema has it: every field the schema does not know taken out, and named by its path
 * (`metadata.label`, `spec.tasks[0].bogus`), as the API server's decoder drops them from the same
 * OpenAPI schemas. A `x-kubernetes-preserve-unknown-fields` schema keeps whatever is under it.
 */
function prune(
  value: unknown,
  schema: Schema,
  lookup: (name: string) => Schema | undefined,
  at: string,
): Pruned {
  const resolved = resolve(schema, lookup);
  if (!resolved || resolved["x-kubernetes-preserve-unknown-fields"] === true) return { value, unknown: [] };
  if (Array.isArray(value)) {
    const items = resolved.items as Schema | undefined;
    if (!items) return { value, unknown: [] };
    const each = value.map((v, i) => prune(v, items, lookup, `${at}[${i}]`));
    return { value: each.map((p) => p.value), unknown: each.flatMap((p) => p.unknown) };
  }
  if (typeof value !== "object" || value === null) return { value, unknown: [] };
  const props = resolved.properties as Record<string, Schema> | undefined;
  const extra = resolved.additionalProperties as Schema | undefined;
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const child = props?.[k] ?? (typeof extra === "object" ? extra : undefined);
    const path = `${at}.${k}`.replace(/^\./, "");
    if (child) {
      const inner = prune(v, child, lookup, `${at}.${k}`);
      out[k] = inner.value;
      unknown.push(...inner.unknown);
    } else if (props) unknown.push(path);
    else out[k] = v;
  }
  return { value: out, unknown };
}

function resolve(schema: Schema, lookup: (name: string) => Schema | undefined): Schema | undefined {
  const name = refName(schema);
  return name === undefined ? schema : lookup(name);
}

/** What `fieldValidation` asks of a field the schema does not have (the query parameter's values). */
type FieldValidation = "Ignore" | "Warn" | "Strict";

/**
 * The query's `fieldValidation`. None is `Warn`, as the API server's default since Kubernetes 1.27: a
 * client that names none (client-go, a controller's POST) gets its unknown fields dropped with a
 * warning, not refused; kubectl asks for `Strict` itself (`--validate=strict`, its default).
 */
function fieldValidationOf(value: string | null): FieldValidation {
  if (value === null || value === "") return "Warn";
  if (value === "Ignore" || value === "Warn" || value === "Strict") return value;
  throw new ApiError(
    "BadRequest",
    `fieldValidation: Unsupported value: "${value}": supported values: "Ignore", "Warn", "Strict"`,
  );
}

/**
 * The object a write stores, by `fieldValidation`: with `Strict` a field the schema does not have is
 * refused (the API server's words: `strict decoding error: unknown field "spec.bogus"`); with `Warn`
 * (the default) it is dropped and reported in one `Warning: 299` header a field, as the API server
 * words them, which kubectl prints; with `Ignore` it is dropped silently.
 */
export function checkedFields(
  obj: unknown,
  schema: Schema | undefined,
  lookup: (name: string) => Schema | undefined,
  mode: string | null,
): { value: unknown; warnings: string[] } {
  const validation = fieldValidationOf(mode);
  if (!schema) return { value: obj, warnings: [] };
  const { value, unknown } = prune(obj, schema, lookup, "");
  if (unknown.length > 0 && validation === "Strict")
    throw new ApiError(
      "BadRequest",
      `strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(", ")}`,
    );
  const warnings = validation === "Warn" ? unknown.map((f) => `299 - "unknown field \\"${f}\\""`) : [];
  return { value, warnings };
}
