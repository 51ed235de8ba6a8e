import type { Document } from "yaml";
import {
  apiGroup,
  apiVersionOf,
  getString,
  kindOf,
  nameOf,
  namespaceOf,
  toPlain,
} from "../../kpt/resource.js";
import { catalogReleases } from "../releases.js";
import { type BuiltinFunction, FunctionError, type KrmItem } from "../types.js";
import type { SchemaBundle } from "./kubeconform/schema-bundle.js";
import { atResource } from "./util/catalog-results.js";

/**
 * kpt's `kubeval` catalog function (ts/kubeval v0.1.1 … kubeval v0.3.0, one TypeScript wrapper around
 * instrumenta's kubeval v0.16.1, unchanged between those releases but for the cluster its baked-in
 * schemas come from), run in-process on the Kubernetes schemas porchlight ships with kubeconform
 * (kubeconform/schema-bundle.ts), with kubeval's messages (gojsonschema's wording):
 * - `<property> is required` and, with `strict`, `Additional property <property> is not allowed`, at the
 *   property; `Invalid type. Expected: [integer,null], given: string` at the field's path (optional
 *   fields accept null, as openapi2jsonschema's Kubernetes schemas say); a quantity is a string, as there;
 * - a kind with no schema fails with the wrapper's "Validating arbitrary CRDs is not supported yet"
 *   message quoting kubeval's error for the schema file it looked for, unless `ignore_missing_schemas` or
 *   `skip_kinds` says otherwise;
 * - results in the SDK's order of resources (apiVersion, kind, namespace, name), each at the resource
 *   and its file.
 * The images validate with schemas converted from a GKE cluster's OpenAPI document (v1.19.8 up to
 * v0.1.x, v1.20.10 from v0.2.0, with GCP CRDs); porchlight's schemas are a newer Kubernetes' built-in
 * kinds: a kind removed since (policy/v1beta1 PodDisruptionBudget, …) or a GCP CRD has no schema here.
 * `schema_location` / `additional_schema_locations` make the image download schemas: the public mirror of
 * the Kubernetes schemas (kubernetesjsonschema.dev, instrumenta's) is validated with the built-in ones;
 * any other location fails with an error saying porchlight cannot fetch it. ts/kubeval v0.1.0 (no
 * `--quiet`, no CRD message) is not reproduced.
 */
/** The shipped schemas, loaded on first use (a few MB that most processes never need). */
async function loadShippedBundle(): Promise<SchemaBundle> {
  return (await import("./kubeconform/schema-bundle.js")).loadBundle();
}

function createKubeval(
  load: () => SchemaBundle | Promise<SchemaBundle> = loadShippedBundle,
): BuiltinFunction {
  let bundle: SchemaBundle | undefined;
  return {
    name: "kubeval",
    releases: catalogReleases("kubeval", "v0.1.1"),
    async run(rl, ctx) {
      const config = readConfig(rl.functionConfig);
      const elsewhere = [config.schemaLocation, ...config.additionalSchemaLocations].filter(
        (l) => l !== "" && !isKubernetesMirror(l),
      );
      if (elsewhere.length > 0) {
        bundle ??= await load();
        const message = `porchlight's kubeval validates offline with its built-in Kubernetes ${bundle.kubernetesVersion} schemas and cannot fetch schemas from ${elsewhere.join(", ")}: drop schema_location and additional_schema_locations (or point them at https://kubernetesjsonschema.dev), or run the image itself with --allow-container`;
        throw new FunctionError(message, [{ message, severity: "error" }]);
      }
      bundle ??= await load();
      const validator = new KubevalValidator(bundle, config.strict);
      for (const item of sdkOrder(rl.items)) {
        ctx.signal?.throwIfAborted();
        const kind = kindOf(item);
        if (config.skipKinds.includes(kind)) continue;
        const messages = validator.validate(apiVersionOf(item), kind, toPlain(item));
        if (messages === undefined) {
          if (!config.ignoreMissingSchemas)
            rl.results.push(atResource(item, missingSchema(item, config.strict)));
          continue;
        }
        for (const m of messages) rl.results.push(atResource(item, m.message, m.field));
      }
      return rl;
    },
  };
}

export const kubeval: BuiltinFunction = createKubeval();

interface KubevalConfig {
  schemaLocation: string;
  additionalSchemaLocations: string[];
  ignoreMissingSchemas: boolean;
  skipKinds: string[];
  strict: boolean;
}

/** The wrapper's config: ConfigMap `data` keys, read with the TS SDK's getFunctionConfigValue. */
function readConfig(fc: KrmItem | undefined): KubevalConfig {
  const value = (key: string): string => (fc ? (getString(fc, ["data", key]) ?? "") : "");
  const list = (key: string): string[] => (value(key) ? value(key).split(",") : []);
  // The wrapper JSON.parse()s its booleans: `true`/`false`; anything else crashes it.
  const bool = (key: string): boolean => {
    const v = value(key);
    if (v === "") return false;
    try {
      return Boolean(JSON.parse(v));
    } catch (e) {
      const message = `${(e as Error).message} (${key}: ${JSON.stringify(v)})`;
      throw new FunctionError(message, [{ message, severity: "error" }]);
    }
  };
  return {
    schemaLocation: value("schema_location"),
    additionalSchemaLocations: list("additional_schema_locations"),
    ignoreMissingSchemas: bool("ignore_missing_schemas"),
    skipKinds: list("skip_kinds"),
    strict: bool("strict"),
  };
}

/** The public mirrors of the Kubernetes JSON schemas, which hold what the built-in schemas hold. */
function isKubernetesMirror(location: string): boolean {
  return /^https?:\/\/(kubernetesjsonschema\.dev|raw\.githubusercontent\.com\/instrumenta\/kubernetes-json-schema\/master)\/?$/.test(
    location.trim(),
  );
}

/** The kpt TS SDK hands the function its objects sorted by apiVersion, kind, namespace and name. */
function sdkOrder(items: readonly Document[]): Document[] {
  const key = (d: Document) => [apiVersionOf(d), kindOf(d), namespaceOf(d), nameOf(d)];
  return [...items].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) {
      const c = (ka[i] ?? "") < (kb[i] ?? "") ? -1 : (ka[i] ?? "") > (kb[i] ?? "") ? 1 : 0;
      if (c !== 0) return c;
    }
    return 0;
  });
}

/** What kubeval prints for a kind with no schema, under the wrapper's advice (its output ends in "\n"). */
function missingSchema(doc: Document, strict: boolean): string {
  const apiVersion = apiVersionOf(doc);
  const group = apiGroup(apiVersion).split(".")[0];
  const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
  const file = `${kindOf(doc).toLowerCase()}${group ? `-${group}` : ""}-${version}.json`;
  const dir = `/tmp/master-standalone${strict ? "-strict" : ""}`;
  return (
    "Validating arbitrary CRDs is not supported yet. You can skip them by setting ignore_missing_schemas or skip_kinds in the function config:\n" +
    `ERR  - stdin: Failed initializing schema file://${dir}/${file}: open ${dir}/${file}: no such file or directory\n`
  );
}

interface Finding {
  field: string;
  message: string;
}

/**
 * gojsonschema's validation of a resource against the Kubernetes schemas, in its order: a value's type,
 * then (for an object) its missing required properties, its unknown ones (strict), then each property.
 */
class KubevalValidator {
  constructor(
    private readonly bundle: SchemaBundle,
    private readonly strict: boolean,
  ) {}

  /** The findings for a resource, or undefined when its kind has no schema. */
  validate(apiVersion: string, kind: string, value: unknown): Finding[] | undefined {
    const model = this.bundle.kinds[`${apiVersion}/${kind}`];
    if (!model) return undefined;
    const out: Finding[] = [];
    this.walk(value, model, [], false, out);
    return out;
  }

  private walk(value: unknown, typeString: string, path: string[], nullable: boolean, out: Finding[]): void {
    const field = path.length > 0 ? path.join(".") : "(root)";
    const formatted = /^(.*)\|([a-z0-9-]+)$/.exec(typeString);
    const type = formatted?.[1] ?? typeString;
    const format = formatted?.[2] ?? "";
    const expect = (want: string): boolean => {
      const given = jsonType(value);
      if (given === want || (want === "number" && given === "integer") || (nullable && given === "null"))
        return true;
      out.push({
        field,
        message: `Invalid type. Expected: ${nullable ? `[${want},null]` : want}, given: ${given}`,
      });
      return false;
    };
    const array = /^Array<(.+)>$/.exec(type);
    if (array?.[1]) {
      if (!expect("array") || !Array.isArray(value)) return;
      const inner = format && !array[1].includes("|") ? `${array[1]}|${format}` : array[1];
      value.forEach((v, i) => {
        this.walk(v, inner, [...path, String(i)], true, out);
      });
      return;
    }
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (map?.[1]) {
      if (!expect("object") || !isObject(value)) return;
      for (const [k, v] of Object.entries(value)) this.walk(v, map[1], [...path, k], true, out);
      return;
    }
    switch (type) {
      case "string":
      case "Date":
      case "Quantity":
        expect("string");
        return;
      case "number":
        expect(format === "int32" || format === "int64" ? "integer" : "number");
        return;
      case "boolean":
        expect("boolean");
        return;
      case "IntOrString": {
        const given = jsonType(value);
        if (given === "string" || given === "integer" || (nullable && given === "null")) return;
        out.push({ field, message: "Must validate one and only one schema (oneOf)" });
        out.push({ field, message: `Invalid type. Expected: string, given: ${given}` });
        return;
      }
      case "any":
        return;
    }
    const model = this.bundle.models[type];
    if (!model) return;
    if (!expect("object") || !isObject(value)) return;
    const required = model.required ?? [];
    for (const r of required) {
      if (!(r in value)) out.push({ field: r, message: `${r} is required` });
    }
    if (this.strict && Object.keys(model.props).length > 0) {
      for (const k of Object.keys(value)) {
        if (!(k in model.props)) out.push({ field: k, message: `Additional property ${k} is not allowed` });
      }
    }
    for (const [prop, propType] of Object.entries(model.props)) {
      if (prop in value) this.walk(value[prop], propType, [...path, prop], !required.includes(prop), out);
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value's type as gojsonschema names it: whole numbers are "integer". */
function jsonType(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "bigint") return "integer";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value === "object" ? "object" : typeof value;
}
