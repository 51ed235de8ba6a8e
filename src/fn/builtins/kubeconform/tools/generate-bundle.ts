/**
 * Build-time tool (not used at run time): writes the compact Kubernetes schema bundle the kubeconform
 * builtin validates with, from the OpenAPI-generated models of the `@kubernetes/client-node` npm package.
 *
 *   npm pack @kubernetes/client-node@2.0.1 && tar xzf kubernetes-client-node-2.0.1.tgz
 *   npx tsx src/fn/builtins/kubeconform/tools/generate-bundle.ts package 1.36
 *
 * For each model class the bundle keeps its properties (the generator's type strings, e.g.
 * `Array<V1Container>`, `number|int32`) and its required properties (read from the declarations); for
 * each creatable kind, `apiVersion/Kind` → model class, read from the API classes' create calls.
 * resource.Quantity fields are typed "string" by the generator; they are marked `Quantity` here.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { SchemaBundle } from "../schema-bundle.js";

/** resource.Quantity fields, as `ModelWithoutVersionPrefix.property`. */
const QUANTITY_FIELDS = new Set([
  "CSIStorageCapacity.capacity",
  "CSIStorageCapacity.maximumVolumeSize",
  "CapacityRequestPolicyRange.max",
  "CapacityRequestPolicyRange.min",
  "CapacityRequestPolicyRange.step",
  "CapacityRequirements.requests",
  "ContainerStatus.allocatedResources",
  "Counter.value",
  "DeviceCapacity.value",
  "DeviceRequestAllocationResult.consumedCapacity",
  "EmptyDirVolumeSource.sizeLimit",
  "LimitRangeItem.default",
  "LimitRangeItem.defaultRequest",
  "LimitRangeItem.max",
  "LimitRangeItem.min",
  "LimitRangeItem.maxLimitRequestRatio",
  "NodeStatus.allocatable",
  "NodeStatus.capacity",
  "Overhead.podFixed",
  "PersistentVolumeClaimStatus.allocatedResources",
  "PersistentVolumeClaimStatus.capacity",
  "PersistentVolumeSpec.capacity",
  "PodSpec.overhead",
  "PodStatus.allocatedResources",
  "ResourceQuotaSpec.hard",
  "ResourceQuotaStatus.hard",
  "ResourceQuotaStatus.used",
  "ResourceRequirements.limits",
  "ResourceRequirements.requests",
  "VolumeResourceRequirements.limits",
  "VolumeResourceRequirements.requests",
  "NamedResourcesAttribute.quantity",
  "BasicDevice.capacity",
  "MetricTarget.averageValue",
  "MetricTarget.value",
  "MetricValueStatus.averageValue",
  "MetricValueStatus.value",
]);

const VERSION_PREFIX = /^(?:[A-Z][a-z]+)*V[0-9]+(?:(?:alpha|beta)[0-9]+)?/;

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

function readModels(dir: string): SchemaBundle["models"] {
  const models: SchemaBundle["models"] = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
    const name = file.slice(0, -3);
    const js = readFileSync(join(dir, file), "utf8");
    const match = /\.attributeTypeMap = (\[[\s\S]*?\]);/.exec(js);
    if (!match?.[1]) continue;
    const attributes = JSON.parse(match[1]) as Attribute[];
    const dts = readFileSync(join(dir, `${name}.d.ts`), "utf8");
    const required = [...dts.matchAll(/^ {4}'([^']+)': /gm)].map((m) => m[1] ?? "");
    const plain = name.replace(VERSION_PREFIX, "");
    const props: Record<string, string> = {};
    for (const a of attributes) {
      let type = a.format ? `${a.type}|${a.format}` : a.type;
      if (QUANTITY_FIELDS.has(`${plain}.${a.baseName}`)) type = quantityType(type);
      props[a.baseName] = type;
    }
    const requiredBase = attributes.filter((a) => required.includes(a.name)).map((a) => a.baseName);
    models[name] = requiredBase.length > 0 ? { props, required: requiredBase } : { props };
  }
  return models;
}

/** `string` → `Quantity`, and a map of strings → a map of quantities. */
function quantityType(type: string): string {
  if (type === "string") return "Quantity";
  return type.replace("]: string; }", "]: Quantity; }");
}

/** `apiVersion/Kind` → model, from each API class's create calls on collection paths. */
function readKinds(dir: string, models: SchemaBundle["models"]): Record<string, string> {
  const kinds: Record<string, string> = {};
  for (const file of readdirSync(dir).filter((f) => /Api\.js$/.test(f))) {
    const js = readFileSync(join(dir, file), "utf8");
    const methods = js.split(/\n {4}async create/).slice(1);
    for (const body of methods) {
      const path = /const localVarPath = '([^']+)'/.exec(body)?.[1];
      const model = /ObjectSerializer\.serialize\(body, "([A-Za-z0-9]+)", ""\)/.exec(body)?.[1];
      if (!path || !model || path.includes("{name}") || !models[model]) continue;
      const gv = /^\/api\/(v[0-9a-z]+)\//.exec(path)?.[1] ?? /^\/apis\/([^/]+\/[^/]+)\//.exec(path)?.[1];
      if (!gv) continue;
      kinds[`${gv}/${model.replace(VERSION_PREFIX, "")}`] = model;
    }
  }
  return kinds;
}

function main(): void {
  const [pkgDir, version] = process.argv.slice(2);
  if (!pkgDir || !version)
    throw new Error("usage: generate-bundle.ts <unpacked @kubernetes/client-node> <k8s version>");
  const models = readModels(join(pkgDir, "dist/gen/models"));
  const kinds = readKinds(join(pkgDir, "dist/gen/apis"), models);
  const bundle: SchemaBundle = { kubernetesVersion: version, kinds, models };
  const gz = gzipSync(Buffer.from(JSON.stringify(bundle)), { level: 9 }).toString("base64");
  const out = new URL("../schemas/k8s-bundle.generated.ts", import.meta.url);
  const text = [
    `// Generated by tools/generate-bundle.ts from @kubernetes/client-node (Kubernetes ${version}); do not edit.`,
    `// ${Object.keys(kinds).length} kinds, ${Object.keys(models).length} models: gzip + base64 of a SchemaBundle.`,
    `export const BUNDLED_KUBERNETES_VERSION = ${JSON.stringify(version)};`,
    `export const BUNDLE_GZIP_BASE64 =\n  "${gz}";`,
    "",
  ].join("\n");
  writeFileSync(out, text);
  process.stdout.write(
    `${Object.keys(kinds).length} kinds, ${Object.keys(models).length} models, ${text.length} bytes\n`,
  );
}

main();
