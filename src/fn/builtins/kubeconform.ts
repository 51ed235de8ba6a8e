import type { Document } from "yaml";
import { apiVersionOf, kindOf, toPlain } from "../../kpt/resource.js";
import type { BuiltinFunction, FunctionResult } from "../types.js";
import { type KubeconformConfig, readConfig } from "./kubeconform/config.js";
import type { KubernetesSchemas } from "./kubeconform/validator.js";
import { atResource } from "./util/catalog-results.js";

/**
 * kubeconform (kpt functions catalog): validates built-in Kubernetes kinds against the Kubernetes JSON
 * schemas, offline, with the schemas porchlight ships (see kubeconform/tools/generate-bundle.ts). Each
 * violation is an error result at the resource, field and file. Kinds with no schema (custom resources)
 * are errors unless `ignore_missing_schemas` is set or the kind is in `skip_kinds`.
 */
function createKubeconform(
  load: () => KubernetesSchemas | Promise<KubernetesSchemas> = loadSchemas,
): BuiltinFunction {
  // Compiled schemas are kept across runs: they depend only on the shipped bundle.
  let schemas: KubernetesSchemas | undefined;
  return {
    name: "kubeconform",
    // porchlight's own validator: no catalog releases to follow.
    releases: "unversioned",
    async run(rl, ctx) {
      schemas ??= await load();
      const config = readConfig(rl.functionConfig);
      rl.results.push(...configWarnings(config, schemas.kubernetesVersion));
      for (const item of rl.items) {
        ctx.signal?.throwIfAborted();
        rl.results.push(...validateItem(item, config, schemas));
      }
      return rl;
    },
  };
}

/**
 * The validator and its schemas (Ajv and a few MB of JSON) are loaded on first use, not at start-up:
 * every `porchlight` process imports the builtins, few run a validator.
 */
async function loadSchemas(): Promise<KubernetesSchemas> {
  const { KubernetesSchemas } = await import("./kubeconform/validator.js");
  return new KubernetesSchemas();
}

export const kubeconform: BuiltinFunction = createKubeconform();

function validateItem(
  doc: Document,
  config: KubeconformConfig,
  schemas: KubernetesSchemas,
): FunctionResult[] {
  const apiVersion = apiVersionOf(doc);
  const kind = kindOf(doc);
  if (config.skipKinds.includes(kind) || config.skipKinds.includes(`${apiVersion}/${kind}`)) return [];
  if (!schemas.hasSchema(apiVersion, kind)) {
    if (config.ignoreMissingSchemas) return [];
    return [
      atResource(
        doc,
        `Validating arbitrary CRDs not supported. Consider setting ignore_missing_schemas or skip_kinds in FunctionConfig:\ncould not find schema for ${kind} (${apiVersion}) in the built-in Kubernetes ${schemas.kubernetesVersion} schemas`,
      ),
    ];
  }
  const violations = schemas.validate(apiVersion, kind, toPlain(doc), config.strict) ?? [];
  return violations.map((v) => {
    const result = atResource(doc, v.message);
    result.field = { path: v.path.replaceAll("/", ".").replace(/^\./, "") };
    return result;
  });
}

/** Settings the built-in validator cannot honour, said once per run as warnings. */
function configWarnings(config: KubeconformConfig, bundled: string): FunctionResult[] {
  const out: FunctionResult[] = [];
  if (config.schemaLocation || config.additionalSchemaLocations.length > 0) {
    out.push({
      message: `schema_location and additional_schema_locations are not used: porchlight validates offline with its built-in Kubernetes ${bundled} schemas`,
      severity: "warning",
    });
  }
  const wanted = /^v?(\d+\.\d+)/.exec(config.kubernetesVersion)?.[1];
  if (wanted && wanted !== bundled) {
    out.push({
      message: `kubernetes_version ${config.kubernetesVersion} is validated with the built-in Kubernetes ${bundled} schemas`,
      severity: "warning",
    });
  }
  return out;
}
