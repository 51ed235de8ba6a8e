import { type Document, isMap, isScalar, isSeq } from "yaml";
import { apiVersionOf, kindOf } from "../../kpt/resource.js";
import { catalogReleases } from "../releases.js";
import type { BuiltinFunction, FunctionContext, ResourceList } from "../types.js";
import { rootMap, setStringEntry, sortedEntries, visitMapsAt } from "./util/catalog-fields.js";
import {
  configMapData,
  gvkMatches,
  gvkOf,
  isConfigMap,
  isGVK,
  stringEntries,
} from "./util/catalog-fnconfig.js";
import { configErrorResult } from "./util/catalog-results.js";

/**
 * set-annotations, as gcr.io/kpt-fn/set-annotations:v0.1.4 does it (kustomize's annotations filter):
 * adds or replaces the given annotations in `metadata.annotations` of every resource, local config
 * included, and in the object metadata of pod and job templates (kustomize's commonAnnotations field
 * specs), plus any `additionalAnnotationFields` of a `SetAnnotations` config. Reports nothing on success.
 */

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KINDS = ["SetAnnotations", "SetAnnotationConfig"];

/** A kustomize field spec: which resources (empty parts match all) and the `/`-separated path to set. */
export interface FieldSpec {
  group: string;
  version: string;
  kind: string;
  path: string[];
  create: boolean;
}

function spec(path: string, create: boolean, kind = "", group = "", version = ""): FieldSpec {
  return { group, version, kind, path: path.split("/"), create };
}

/** kustomize's built-in commonAnnotations field specs. */
const COMMON_ANNOTATIONS: readonly FieldSpec[] = [
  spec("metadata/annotations", true),
  spec("spec/template/metadata/annotations", true, "ReplicationController", "", "v1"),
  spec("spec/template/metadata/annotations", true, "Deployment"),
  spec("spec/template/metadata/annotations", true, "ReplicaSet"),
  spec("spec/template/metadata/annotations", true, "DaemonSet"),
  spec("spec/template/metadata/annotations", true, "StatefulSet", "apps"),
  spec("spec/template/metadata/annotations", true, "Job", "batch"),
  spec("spec/jobTemplate/metadata/annotations", true, "CronJob", "batch"),
  spec("spec/jobTemplate/spec/template/metadata/annotations", true, "CronJob", "batch"),
];

interface SetAnnotationsConfig {
  annotations: [string, string][];
  fieldSpecs: FieldSpec[];
}

function readFieldSpecs(node: unknown, field: string): FieldSpec[] | string {
  if (node === undefined || node === null) return [];
  if (!isSeq(node)) return `\`${field}\` must be a list of field specs`;
  const specs: FieldSpec[] = [];
  for (const item of node.items) {
    if (!isMap(item)) return `\`${field}\` entries must be mappings with a \`path\``;
    const entries = stringEntries(item);
    const path = entries.get("path") ?? "";
    if (path === "") return `\`${field}\` entries need a \`path\``;
    const createNode = item.get("create", true);
    const create = isScalar(createNode) && (createNode.value === true || createNode.value === "true");
    specs.push(
      spec(path, create, entries.get("kind") ?? "", entries.get("group") ?? "", entries.get("version") ?? ""),
    );
  }
  return specs;
}

/** The config, or the catalog's error message (kpt shows it after "failed to configure function: "). */
export function readSetAnnotationsConfig(config: Document | undefined): SetAnnotationsConfig | string {
  let annotations: [string, string][];
  let fieldSpecs: FieldSpec[] = [];
  if (config && isConfigMap(config)) {
    annotations = sortedEntries(configMapData(config));
  } else if (config && CONFIG_KINDS.some((kind) => isGVK(config, CONFIG_API_VERSION, kind))) {
    annotations = sortedEntries(stringEntries(config.get("annotations", true)));
    const additional = config.get("additionalAnnotationFields", true);
    const deprecated = config.get("fieldSpecs", true);
    if (additional != null && deprecated != null) {
      return "failed to configure function: `fieldSpecs` has been deprecated, please rename it to `additionalAnnotationFields`";
    }
    const specs = readFieldSpecs(
      additional ?? deprecated,
      additional != null ? "additionalAnnotationFields" : "fieldSpecs",
    );
    if (typeof specs === "string") return `failed to configure function: ${specs}`;
    fieldSpecs = specs;
  } else {
    return "failed to configure function: function config must be a ConfigMap or SetAnnotations";
  }
  if (annotations.length === 0) return "failed to configure function: input annotation list cannot be empty";
  return { annotations, fieldSpecs: [...fieldSpecs, ...COMMON_ANNOTATIONS] };
}

export const setAnnotations: BuiltinFunction = {
  name: "set-annotations",
  releases: catalogReleases("set-annotations", "v0.1.4"),
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    const cfg = readSetAnnotationsConfig(input.functionConfig);
    if (typeof cfg === "string") {
      input.results.push(configErrorResult(cfg, input.functionConfig));
      return input;
    }
    for (const doc of input.items) {
      ctx.signal?.throwIfAborted();
      const root = rootMap(doc);
      if (!root || (apiVersionOf(doc) === "" && kindOf(doc) === "")) continue;
      const gvk = gvkOf(doc);
      const specs = cfg.fieldSpecs.filter((fs) => gvkMatches(gvk, fs.group, fs.version, fs.kind));
      for (const [key, value] of cfg.annotations) {
        for (const fs of specs) {
          visitMapsAt(doc, root, fs.path, fs.create, (map) => setStringEntry(doc, map, key, value));
        }
      }
    }
    return input;
  },
};
