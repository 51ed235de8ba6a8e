import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { definitionsDocument, SCHEMA_ID } from "./json-schema.js";
import { loadBundle, type SchemaBundle } from "./schema-bundle.js";

/** One schema violation: where (a JSON pointer, as kubeconform reports it) and what. */
export interface Violation {
  path: string;
  message: string;
}

/**
 * Validates resources against the built-in Kubernetes schemas. Each kind's validator is compiled on first
 * use and kept, so one instance serves many runs; compiled validators are pure functions of the bundle.
 */
export class KubernetesSchemas {
  private readonly engines = new Map<boolean, Ajv>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly bundle: SchemaBundle = loadBundle()) {}

  get kubernetesVersion(): string {
    return this.bundle.kubernetesVersion;
  }

  hasSchema(apiVersion: string, kind: string): boolean {
    return this.bundle.kinds[`${apiVersion}/${kind}`] !== undefined;
  }

  /** The violations of a resource (as plain data), or undefined when there is no schema for its kind. */
  validate(apiVersion: string, kind: string, value: unknown, strict: boolean): Violation[] | undefined {
    const model = this.bundle.kinds[`${apiVersion}/${kind}`];
    if (!model) return undefined;
    const validate = this.validator(model, strict);
    if (validate(value)) return [];
    return describeErrors(validate.errors ?? []);
  }

  private validator(model: string, strict: boolean): ValidateFunction {
    const key = `${strict}|${model}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.engine(strict).compile({ $ref: `${SCHEMA_ID}#/definitions/${model}` });
      this.validators.set(key, validate);
    }
    return validate;
  }

  private engine(strict: boolean): Ajv {
    let ajv = this.engines.get(strict);
    if (!ajv) {
      ajv = new Ajv({
        allErrors: true,
        verbose: true,
        strict: false,
        validateFormats: false,
        validateSchema: false,
      });
      ajv.addSchema(definitionsDocument(this.bundle, strict));
      this.engines.set(strict, ajv);
    }
    return ajv;
  }
}

/**
 * Turns ajv's errors into kubeconform's messages (kubeconform 0.7, santhosh-tekuri/jsonschema v6
 * wording): missing and unknown properties grouped per object, `got string, want null or integer`.
 */
function describeErrors(errors: readonly ErrorObject[]): Violation[] {
  const entries: { path: string; message: string; names?: string[]; grouped?: "missing" | "unknown" }[] = [];
  const groups = new Map<string, string[]>();
  const addNamed = (grouped: "missing" | "unknown", path: string, name: string) => {
    const key = `${grouped}|${path}`;
    const names = groups.get(key);
    if (names) {
      names.push(name);
      return;
    }
    const fresh = [name];
    groups.set(key, fresh);
    entries.push({ path, message: "", names: fresh, grouped });
  };
  for (const e of errors) {
    if (e.schemaPath.includes("/oneOf/")) continue;
    const path = e.instancePath;
    if (e.keyword === "required") addNamed("missing", path, String(e.params.missingProperty));
    else if (e.keyword === "additionalProperties")
      addNamed("unknown", path, String(e.params.additionalProperty));
    else if (e.keyword === "type") {
      entries.push({ path, message: `got ${jsonType(e.data)}, want ${typeList(e.schema)}` });
    } else if (e.keyword === "oneOf") {
      entries.push({ path, message: `got ${jsonType(e.data)}, want ${oneOfTypes(e.schema)}` });
    } else entries.push({ path, message: e.message ?? e.keyword });
  }
  return entries.map(({ path, message, names, grouped }) => {
    const list = names ?? [];
    if (grouped === "missing") {
      return { path, message: `missing ${list.length === 1 ? "property" : "properties"} ${quoteAll(list)}` };
    }
    if (grouped === "unknown")
      return { path, message: `additional properties ${quoteAll(list)} not allowed` };
    return { path, message };
  });
}

function quoteAll(names: readonly string[]): string {
  return names.map((n) => `'${n}'`).join(", ");
}

/** jsonschema v6 lists types in this order, whatever the schema's order. */
const TYPE_ORDER = ["null", "boolean", "number", "integer", "string", "array", "object"];

function typeList(schema: unknown): string {
  const types = Array.isArray(schema) ? schema.map(String) : [String(schema)];
  return sortTypes(types).join(" or ");
}

function sortTypes(types: readonly string[]): string[] {
  return [...new Set(types)].sort((a, b) => TYPE_ORDER.indexOf(a) - TYPE_ORDER.indexOf(b));
}

function oneOfTypes(schema: unknown): string {
  const types: string[] = [];
  for (const branch of Array.isArray(schema) ? schema : []) {
    const t = (branch as { type?: unknown }).type;
    for (const name of Array.isArray(t) ? t : [t]) {
      if (typeof name === "string") types.push(name);
    }
  }
  return sortTypes(types).join(" or ");
}

/** The JSON type of a value as jsonschema v6 names it in "got …" (every number is a "number"). */
export function jsonType(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" || typeof value === "bigint") return "number";
  return typeof value === "object" ? "object" : typeof value;
}
