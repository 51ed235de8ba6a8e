import { type Document, isMap, isSeq, type Node, Pair, Scalar, type YAMLMap } from "yaml";
import { atLeast, catalogReleases } from "../releases.js";
import type { BuiltinFunction, FunctionContext, ResourceList } from "../types.js";
import { rootMap, sortedEntries } from "./util/catalog-fields.js";
import { configMapData, isConfigMap, isGVK, stringEntries } from "./util/catalog-fnconfig.js";
import { errorResult } from "./util/catalog-results.js";
import { isYaml11NonString, jsonRoundTrip, syncOrder } from "./util/go-json-roundtrip.js";
import {
  applyFieldSpec,
  COMMON_ANNOTATIONS,
  type FieldSpec,
  FieldSpecError,
  fieldSpec,
  pairKey,
} from "./util/kustomize-fieldspec.js";
import { duplicateResourceId, withoutLocalConfig } from "./util/kustomize-resmap.js";

/**
 * set-annotations, as gcr.io/kpt-fn/set-annotations:v0.1.3 and v0.1.4 do it (kustomize's annotations
 * filter): adds or replaces the given annotations in `metadata.annotations` of every resource and in
 * the object metadata of pod and job templates (kustomize's commonAnnotations field specs), after the
 * config's own field specs. Reports nothing on success.
 *
 * v0.1.3 (set-annotations/v0.1.3, kustomize api v0.7.2) reads only `SetAnnotationConfig`, leaves
 * local-config resources out of its output (so kpt deletes them) and round-trips every resource through
 * JSON (quoting and numbers come out as Go prints them). v0.1.4 (set-annotations/v0.1.4) adds the
 * `SetAnnotations` kind and `additionalAnnotationFields`, keeps local config and edits resources in place.
 */

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "SetAnnotations";
const LEGACY_CONFIG_KIND = "SetAnnotationConfig";

interface SetAnnotationsConfig {
  annotations: [string, string][];
  fieldSpecs: FieldSpec[];
}

function readFieldSpecs(node: unknown): FieldSpec[] {
  if (!isSeq(node)) return [];
  return node.items.filter(isMap).map((item) => {
    const entries = stringEntries(item);
    const create = entries.get("create") ?? "";
    return fieldSpec(
      entries.get("path") ?? "",
      create === "true" || create === "True" || create === "TRUE",
      entries.get("kind") ?? "",
      entries.get("group") ?? "",
      entries.get("version") ?? "",
    );
  });
}

/** The config, or the catalog's error message (kpt shows it after "failed to configure function: "). */
export function readSetAnnotationsConfig(
  config: Document | undefined,
  release = "v0.1.4",
): SetAnnotationsConfig | string {
  const current = atLeast(release, "v0.1.4");
  let annotations: [string, string][];
  let fieldSpecs: FieldSpec[] = [];
  if (config && isConfigMap(config)) {
    annotations = sortedEntries(configMapData(config));
  } else if (
    config &&
    (isGVK(config, CONFIG_API_VERSION, LEGACY_CONFIG_KIND) ||
      (current && isGVK(config, CONFIG_API_VERSION, CONFIG_KIND)))
  ) {
    annotations = sortedEntries(stringEntries(config.get("annotations", true)));
    const deprecated = config.get("fieldSpecs", true);
    const additional = current ? config.get("additionalAnnotationFields", true) : undefined;
    if (isSeq(deprecated) && isSeq(additional)) {
      return "failed to configure function: `fieldSpecs` has been deprecated, please rename it to `additionalAnnotationFields`";
    }
    fieldSpecs = readFieldSpecs(isSeq(additional) ? additional : deprecated);
  } else {
    return current
      ? `failed to configure function: \`functionConfig\` must be a \`ConfigMap\` or \`${CONFIG_KIND}\``
      : `failed to configure function: function config must be a ConfigMap or ${LEGACY_CONFIG_KIND}`;
  }
  if (annotations.length === 0) return "failed to configure function: input annotation list cannot be empty";
  return { annotations, fieldSpecs: [...fieldSpecs, ...COMMON_ANNOTATIONS] };
}

/**
 * Sets an annotation as kustomize's SetEntry does: a new entry is a string, double-quoted when YAML 1.1
 * would read it as something else; an existing one takes the new value in its own style.
 */
function setEntry(map: YAMLMap, key: string, value: string): void {
  const existing = map.items.find((p) => pairKey(p) === key);
  const node = new Scalar(value);
  if (existing) {
    const old = existing.value;
    if (old instanceof Scalar) {
      node.type = old.type;
      node.comment = old.comment;
      node.commentBefore = old.commentBefore;
    }
    existing.value = node;
    return;
  }
  if (isYaml11NonString(value)) node.type = Scalar.QUOTE_DOUBLE;
  map.items.push(new Pair(new Scalar(key), node));
}

export const setAnnotations: BuiltinFunction = {
  name: "set-annotations",
  releases: catalogReleases("set-annotations", "v0.1.3", "v0.1.4"),
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    const release = ctx.release ?? "v0.1.4";
    const cfg = readSetAnnotationsConfig(input.functionConfig, release);
    if (typeof cfg === "string") {
      input.results.push(errorResult(cfg));
      return input;
    }
    // v0.1.3 builds its resource map with kunstruct, which skips anything annotated local-config and
    // works on JSON; v0.1.4 includes local config and filters the YAML nodes themselves.
    const kunstruct = !atLeast(release, "v0.1.4");
    const items = kunstruct ? withoutLocalConfig(input.items) : input.items;
    const clash = duplicateResourceId(items);
    if (clash) {
      input.results.push(errorResult(`failed to run function: ${clash}`));
      return input;
    }
    for (const doc of items) {
      ctx.signal?.throwIfAborted();
      if (!rootMap(doc)) continue;
      const before = kunstruct ? doc.clone() : undefined;
      try {
        for (const [key, value] of cfg.annotations) {
          for (const spec of cfg.fieldSpecs) applyFieldSpec(doc, spec, (map) => setEntry(map, key, value));
        }
      } catch (err) {
        if (!(err instanceof FieldSpecError)) throw err;
        input.results.push(errorResult(`failed to run function: failed to run transformer: ${err.message}`));
        return input;
      }
      if (before) {
        jsonRoundTrip(doc, "kunstruct");
        syncOrder(before.contents as Node | null, doc.contents as Node | null);
      }
    }
    input.items = items;
    return input;
  },
};
