import { isMap, isScalar, Scalar, type YAMLMap } from "yaml";
import {
  headComment,
  markEndFoot,
  setHeadComment,
  setTrailingComment,
  trailingComment,
} from "./yaml/comments.js";

/**
 * The annotations kpt reads and writes on resources, with kpt's meaning.
 *
 * kpt v1 writes both the `config.kubernetes.io/*` and the `internal.config.kubernetes.io/*` forms on
 * resources it hands to functions, and reads either back (the internal form wins). The legacy
 * `config.k8s.io/{path,index,id}` legacy forms are read when the current form is absent.
 */
export const ANNOTATION = {
  /** File the resource lives in, relative to the package root, with forward slashes. */
  path: "config.kubernetes.io/path",
  /** Position of the resource's document within its file, from 0. */
  index: "config.kubernetes.io/index",
  internalPath: "internal.config.kubernetes.io/path",
  internalIndex: "internal.config.kubernetes.io/index",
  /** Absolute directory of the package the resource was read from (set by kpt while rendering). */
  packagePath: "internal.config.kubernetes.io/package-path",
  /** Sequence indentation style of the file: "compact" (`- a` under the key) or "wide" (indented). */
  seqIndent: "internal.config.kubernetes.io/seqindent",
  /** Stable id kpt assigns to match function output back to input (written in both forms). */
  internalId: "internal.config.kubernetes.io/id",
  annotationsMigrationId: "internal.config.kubernetes.io/annotations-migration-resource-id",
  /** `"true"`: the resource configures tooling and is not applied to a cluster. */
  localConfig: "config.kubernetes.io/local-config",
  /** Resources that must be applied before this one (`group/namespaces/ns/Kind/name`). */
  dependsOn: "config.kubernetes.io/depends-on",
  /** Porch: a resource to be replaced by a matching in-cluster/downstream resource. */
  configInjection: "kpt.dev/config-injection",
} as const;

/** Pre-v1 (kyaml "legacy") forms kpt still reads when the current form is absent, and still writes for old functions. */
export const LEGACY_ANNOTATION = {
  path: "config.k8s.io/path",
  index: "config.k8s.io/index",
  id: "config.k8s.io/id",
} as const;

/** Annotations kpt sets only while a package is being processed and strips before writing files. */
export const TRANSIENT_ANNOTATIONS: readonly string[] = [
  ANNOTATION.path,
  ANNOTATION.index,
  ANNOTATION.internalPath,
  ANNOTATION.internalIndex,
  ANNOTATION.packagePath,
  ANNOTATION.seqIndent,
  ANNOTATION.internalId,
  ANNOTATION.annotationsMigrationId,
  LEGACY_ANNOTATION.path,
  LEGACY_ANNOTATION.index,
  LEGACY_ANNOTATION.id,
];

/**
 * The annotations kpt's package writer (kyaml's LocalPackageWriter, as `pkg get` and `pkg update` write
 * files) clears from every resource, whoever set them: the reader's own, file and index, and the sequence
 * style. Read off kpt v1.0.0-beta.56: the package path, the ids and the legacy `config.k8s.io/path` and
 * `/index` a file already holds pass through.
 */
export const WRITER_CLEARED_ANNOTATIONS: readonly string[] = [
  ANNOTATION.path,
  ANNOTATION.index,
  ANNOTATION.internalPath,
  ANNOTATION.internalIndex,
  ANNOTATION.seqIndent,
  ANNOTATION.annotationsMigrationId,
];

/**
 * What kpt's `pkg update` clears besides: the annotation kyaml's 3-way merge marks each side's
 * resources with (`merge-source`: original, updated, dest), whoever wrote it into a file. Read off kpt
 * v1.0.0-beta.56: a resource holding `config.kubernetes.io/merge-source: 'updated'` upstream and locally
 * comes out of the update without it.
 */
export const MERGE_CLEARED_ANNOTATIONS: readonly string[] = [
  ...WRITER_CLEARED_ANNOTATIONS,
  "config.kubernetes.io/merge-source",
];

/**
 * The `annotations` map of `metadata` to set an annotation in, as kyaml's SetAnnotation finds it: it
 * first clears an `annotations` field with nothing in it (`{}`, `[]`, no value; porchlight, anything
 * but a mapping: its ClearEmptyAnnotations), the key's comments with it, then appends a new map after
 * metadata's other fields. metadata's foot comment (yaml.v3: its last field's) stays on that field,
 * the new key after it and a blank line. A foot comment after a cleared last field is that field's in
 * yaml.v3: it goes with it where `dropFoot` (a merge writes kpt's bytes); a render keeps it, above
 * the new key (docs/kpt-compat.md, Deviations).
 */
export function annotationsToSet(metadata: YAMLMap, dropFoot: boolean): YAMLMap {
  const at = metadata.items.findIndex((p) => keyText(p.key) === "annotations");
  const current = at >= 0 ? metadata.items[at]?.value : undefined;
  if (isMap(current) && current.items.length > 0) return current;
  if (at >= 0) {
    metadata.items.splice(at, 1);
    if (dropFoot && at === metadata.items.length) setTrailingComment(metadata, undefined);
  }
  const created = new (metadata.constructor as new () => YAMLMap)();
  const key = new Scalar("annotations");
  const foot = trailingComment(metadata);
  if (foot) {
    setHeadComment(key, `${foot}\n`);
    setTrailingComment(metadata, undefined);
  }
  metadata.add({ key, value: created });
  return created;
}

/**
 * Takes the `annotations` field out of `metadata` (kyaml's writer clears one left empty). A comment
 * above the key with a blank line between them is the field before's foot in yaml.v3 (where
 * annotationsToSet put metadata's foot): it stays, as kpt keeps it.
 */
export function dropAnnotationsField(metadata: YAMLMap): void {
  const at = metadata.items.findIndex((p) => keyText(p.key) === "annotations");
  if (at < 0) return;
  const [pair] = metadata.items.splice(at, 1);
  const before = isScalar(pair?.key) ? headComment(pair.key) : undefined;
  if (!before?.endsWith("\n")) return;
  const foot = before.slice(0, -1);
  const next = metadata.items[at];
  if (next === undefined) {
    const own = trailingComment(metadata);
    setTrailingComment(metadata, own ? `${foot}\n${own}` : foot);
    // metadata's own foot, written at its column (yaml.v3 holds it on its last key), after a nested
    // block too
    markEndFoot(metadata);
  } else if (isScalar(next.key)) {
    const head = headComment(next.key);
    setHeadComment(next.key, head ? `${before}${head}` : before);
  }
}

/**
 * Appends `key: value` to `map` as kyaml's field setter appends a field: yaml.v3 keeps a map's foot
 * comment on its last key, so it stays there, then a blank line, then the new key.
 */
export function appendAfterFoot(map: YAMLMap, key: string, value: Scalar): void {
  const k = new Scalar(key);
  const foot = trailingComment(map);
  if (foot) {
    setHeadComment(k, `${foot}\n`);
    setTrailingComment(map, undefined);
  }
  map.add({ key: k, value });
}

function keyText(key: unknown): unknown {
  return isScalar(key) ? key.value : key;
}
