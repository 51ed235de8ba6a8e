import {
  type Alias,
  type Document,
  isPair,
  isScalar,
  type Node,
  type Pair,
  type Scalar,
  YAMLMap,
  type YAMLSeq,
} from "yaml";
import {
  ALIAS_KIND,
  MAP_KIND,
  newScalar,
  nodeKind,
  readPair,
  SCALAR_KIND,
  SEQ_KIND,
} from "../../../kpt/yaml/yaml-nodes.js";

/**
 * kustomize's field specs as its label and annotation filters apply them (api/filters/fsslice and
 * fieldspec, kustomize api v0.7.1 to v0.8.11, which the catalog's set-labels v0.1.x and
 * set-annotations v0.1.x build on): a spec selects resources by group, version and kind (an empty part
 * matches any) and names a `/`-separated path. The walk goes through mappings by key and through every
 * element of any sequence it meets (a path segment does not say so; `name[]` only forbids creating
 * `name`); missing mappings are created when the spec says `create`.
 */

export interface FieldSpec {
  group: string;
  version: string;
  kind: string;
  path: string;
  create: boolean;
}

/** A spec as written in kustomize's field spec YAML: `path`, `create`, and the selector fields. */
export function fieldSpec(path: string, create: boolean, kind = "", group = "", version = ""): FieldSpec {
  return { group, version, kind, path, create };
}

/** kustomize's `commonLabels` field specs (api/konfig/builtinpluginconsts/commonlabels.go, api v0.7.1–v0.8.11). */
export const COMMON_LABELS: readonly FieldSpec[] = [
  fieldSpec("metadata/labels", true),
  fieldSpec("spec/selector", true, "Service", "", "v1"),
  fieldSpec("spec/selector", true, "ReplicationController", "", "v1"),
  fieldSpec("spec/template/metadata/labels", true, "ReplicationController", "", "v1"),
  fieldSpec("spec/selector/matchLabels", true, "Deployment"),
  fieldSpec("spec/template/metadata/labels", true, "Deployment"),
  ...podAffinitySpecs("Deployment"),
  fieldSpec("spec/selector/matchLabels", true, "ReplicaSet"),
  fieldSpec("spec/template/metadata/labels", true, "ReplicaSet"),
  fieldSpec("spec/selector/matchLabels", true, "DaemonSet"),
  fieldSpec("spec/template/metadata/labels", true, "DaemonSet"),
  fieldSpec("spec/selector/matchLabels", true, "StatefulSet", "apps"),
  fieldSpec("spec/template/metadata/labels", true, "StatefulSet", "apps"),
  ...podAffinitySpecs("StatefulSet"),
  fieldSpec("spec/volumeClaimTemplates[]/metadata/labels", true, "StatefulSet", "apps"),
  fieldSpec("spec/selector/matchLabels", false, "Job", "batch"),
  fieldSpec("spec/template/metadata/labels", true, "Job", "batch"),
  fieldSpec("spec/jobTemplate/spec/selector/matchLabels", false, "CronJob", "batch"),
  fieldSpec("spec/jobTemplate/metadata/labels", true, "CronJob", "batch"),
  fieldSpec("spec/jobTemplate/spec/template/metadata/labels", true, "CronJob", "batch"),
  fieldSpec("spec/selector/matchLabels", false, "PodDisruptionBudget", "policy"),
  fieldSpec("spec/podSelector/matchLabels", false, "NetworkPolicy", "networking.k8s.io"),
  fieldSpec("spec/ingress/from/podSelector/matchLabels", false, "NetworkPolicy", "networking.k8s.io"),
  fieldSpec("spec/egress/to/podSelector/matchLabels", false, "NetworkPolicy", "networking.k8s.io"),
];

function podAffinitySpecs(kind: string): FieldSpec[] {
  const affinity = "spec/template/spec/affinity";
  return [
    `${affinity}/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels`,
    `${affinity}/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels`,
    `${affinity}/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels`,
    `${affinity}/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels`,
    "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
  ].map((path) => fieldSpec(path, false, kind, "apps"));
}

/**
 * kustomize's `commonAnnotations` field specs (commonannotations.go, api v0.7.1–v0.8.11): StatefulSet
 * is matched by kind alone there, unlike in the label specs.
 */
export const COMMON_ANNOTATIONS: readonly FieldSpec[] = [
  fieldSpec("metadata/annotations", true),
  fieldSpec("spec/template/metadata/annotations", true, "ReplicationController", "", "v1"),
  fieldSpec("spec/template/metadata/annotations", true, "Deployment"),
  fieldSpec("spec/template/metadata/annotations", true, "ReplicaSet"),
  fieldSpec("spec/template/metadata/annotations", true, "DaemonSet"),
  fieldSpec("spec/template/metadata/annotations", true, "StatefulSet"),
  fieldSpec("spec/template/metadata/annotations", true, "Job", "batch"),
  fieldSpec("spec/jobTemplate/metadata/annotations", true, "CronJob", "batch"),
  fieldSpec("spec/jobTemplate/spec/template/metadata/annotations", true, "CronJob", "batch"),
];

/** A field spec walk that met a value it cannot walk through (kustomize's error, as the function reports it). */
export class FieldSpecError extends Error {}

/**
 * The group and version of an apiVersion as kustomize api v0.7.x splits it: without a `/`, a `v1`- or
 * `v2`-like text is a core version, anything else a group.
 */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  if (slash >= 0) return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
  if (/^v[12]/.test(apiVersion)) return { group: "", version: apiVersion };
  return { group: apiVersion, version: "" };
}

/** What field specs select a resource by: its kind, group and version (read once per resource). */
export interface SpecTarget {
  kind: string;
  group: string;
  version: string;
}

export function specTarget(apiVersion: string, kind: string): SpecTarget {
  return { kind, ...parseGroupVersion(apiVersion) };
}

export function fieldSpecSelects(spec: FieldSpec, target: SpecTarget): boolean {
  if (spec.kind !== "" && spec.kind !== target.kind) return false;
  if (spec.group !== "" && spec.group !== target.group) return false;
  return spec.version === "" || spec.version === target.version;
}

/** A path split at `/`, where `\/` keeps a slash inside a segment (kustomize's splitPath). */
export function splitFieldSpecPath(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split("/")) {
    const last = out.length - 1;
    //  out[last] exists: last >= 0
    if (last >= 0 && out[last]!.endsWith("\\")) out[last] = `${out[last]!.slice(0, -1)}/${part}`;
    else out.push(part);
  }
  return out;
}

/** A field spec with its path split: for applying the same specs to many resources. */
export interface CompiledFieldSpec {
  spec: FieldSpec;
  /** Each segment's key, and whether it is a sequence field (`name[]`). */
  segments: { name: string; isSeqField: boolean }[];
}

export function compileFieldSpec(spec: FieldSpec): CompiledFieldSpec {
  const segments = splitFieldSpecPath(spec.path).map((segment) => {
    const isSeqField = segment.endsWith("[]");
    return { name: isSeqField ? segment.slice(0, -2) : segment, isSeqField };
  });
  return { spec, segments };
}

/** applyFieldSpec of a compiled spec already known to select the resource. */
export function applyCompiledFieldSpec(
  doc: Document,
  compiled: CompiledFieldSpec,
  set: (map: YAMLMap) => void,
): void {
  walkFieldSpec(doc, compiled, set, doc.contents as Node | undefined, 0);
}

function walkFieldSpec(
  doc: Document,
  compiled: CompiledFieldSpec,
  set: (map: YAMLMap) => void,
  node: Node | undefined,
  at: number,
): void {
  // The node's kind read once (nodeKind), not by isAlias, isMap, isScalar and isSeq in turn.
  const kind = nodeKind(node);
  if (kind === ALIAS_KIND) {
    walkFieldSpec(doc, compiled, set, (node as Alias).resolve(doc) as Node | undefined, at);
    return;
  }
  const isNullNode = node === null || (kind === SCALAR_KIND && isNullValue((node as Scalar).value));
  if (at === compiled.segments.length) {
    if (kind === MAP_KIND) set(node as YAMLMap);
    else if (!isNullNode) throw walkError(compiled.spec, "wrong Node Kind for  expected: MappingNode");
    return;
  }
  if (node === undefined || isNullNode) return;
  if (kind === SEQ_KIND) {
    const items = (node as YAMLSeq).items;
    for (let i = 0; i < items.length; i++) walkFieldSpec(doc, compiled, set, items[i] as Node, at);
    return;
  }
  if (kind !== MAP_KIND) throw walkError(compiled.spec, "expected sequence or mapping node");
  const map = node as YAMLMap;
  const segment = compiled.segments[at];
  if (!segment) return;
  const { name, isSeqField } = segment;
  const pair = pairWithKey(map, name);
  let value = pair?.value as Node | undefined | null;
  if (compiled.spec.create && !isSeqField) {
    if (!pair) {
      value = new YAMLMap();
      // As `new Pair(new Scalar(name), value)` makes them, without their constructors' property definitions.
      map.items.push(readPair(newScalar(name), value));
    } else if (value === null || value === undefined || isNull(value)) {
      value = new YAMLMap();
      pair.value = value;
    }
  }
  walkFieldSpec(doc, compiled, set, value ?? undefined, at + 1);
}

/** A mapping entry's key as text (keys may be scalar nodes or plain values). */
export function pairKey(pair: unknown): string | undefined {
  if (!isPair(pair)) return undefined;
  const key = isScalar(pair.key) ? pair.key.value : pair.key;
  return key === null || key === undefined || typeof key === "object" ? undefined : String(key);
}

/**
 * The first entry of `map` whose key (as pairKey reads it) is `key`. An index loop: most of a short
 * run's code is not optimised, and there `find` with a callback costs a call per entry.
 */
export function pairWithKey(map: YAMLMap, key: string): Pair | undefined {
  const pairs = map.items;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i];
    if (!isPair(pair)) continue;
    // pairKey inlined: a string key compared as it is, without String() or a second read of its kind.
    const k = pair.key;
    const text = isScalar(k) ? k.value : k;
    if (text === key) return pair;
    if (typeof text === "string" || text === null || text === undefined || typeof text === "object") continue;
    if (String(text) === key) return pair;
  }
  return undefined;
}

function isNull(node: unknown): boolean {
  return node === null || (isScalar(node) && isNullValue(node.value));
}

function isNullValue(value: unknown): boolean {
  return value === null || value === undefined;
}

function walkError(spec: FieldSpec, message: string): FieldSpecError {
  return new FieldSpecError(`considering field '${spec.path}': ${message}`);
}
