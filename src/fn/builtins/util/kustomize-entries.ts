import { type Document, isMap, isSeq, type Node, Scalar, type YAMLMap } from "yaml";
import { apiVersionOf, kindOf } from "../../../kpt/resource.js";
import { copyComments } from "../../../kpt/yaml/comments.js";
import { newScalar, readPair } from "../../../kpt/yaml/yaml-nodes.js";
import type { FieldPattern, FunctionContext, ItemSplit, Rerun, ResourceList } from "../../types.js";
import { sortedEntries } from "./catalog-fields.js";
import { configMapData, isConfigMap, isGVK, stringEntries } from "./catalog-fnconfig.js";
import { errorResult } from "./catalog-results.js";
import { type GoJsonTrip, isYaml11NonString, jsonRoundTrip, syncOrder } from "./go-json-roundtrip.js";
import {
  applyCompiledFieldSpec,
  type CompiledFieldSpec,
  compileFieldSpec,
  type FieldSpec,
  FieldSpecError,
  fieldSpec,
  fieldSpecSelects,
  pairWithKey,
  specTarget,
} from "./kustomize-fieldspec.js";
import { duplicateResourceId, resourceIdKey, withoutLocalConfig } from "./kustomize-resmap.js";
import { perKind } from "./per-kind.js";
import { ID_FIELDS } from "./rerun-fields.js";

/**
 * What set-labels v0.1.x and set-annotations v0.1.x share around kustomize's label and annotation
 * filters: their config (a ConfigMap's data, or a SetLabels / SetAnnotations object with its own field
 * specs), and filtersutil.SetEntry, which both filters set each entry with.
 */

/** How one of the two functions names its config. */
export interface EntriesConfigNames {
  /** The config's field with the entries, `labels` or `annotations`. */
  field: "labels" | "annotations";
  kind: string;
  legacyKind: string;
  /** Whether the release reads `kind` and `additional…Fields` besides `legacyKind` and `fieldSpecs`. */
  current: boolean;
  /** The error for any other config in a current release (the two functions word it differently). */
  notACurrentConfig: string;
  /** kustomize's field specs for the entries, applied after the config's own. */
  commonSpecs: readonly FieldSpec[];
}

export interface EntriesConfig {
  /** The entries, sorted by key. */
  entries: [string, string][];
  specs: FieldSpec[];
}

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";

/** The config, or the error message the function reports after "failed to configure function: ". */
export function readEntriesConfig(
  config: Document | undefined,
  names: EntriesConfigNames,
): EntriesConfig | string {
  const { field, kind, legacyKind, current } = names;
  const singular = field.slice(0, -1);
  const additionalField = `additional${singular.charAt(0).toUpperCase()}${singular.slice(1)}Fields`;
  let entries: [string, string][];
  let specs: FieldSpec[] = [];
  if (config && isConfigMap(config)) {
    entries = sortedEntries(configMapData(config));
  } else if (
    config &&
    (isGVK(config, CONFIG_API_VERSION, legacyKind) || (current && isGVK(config, CONFIG_API_VERSION, kind)))
  ) {
    entries = sortedEntries(stringEntries(config.get(field, true)));
    const deprecated = config.get("fieldSpecs", true);
    const additional = current ? config.get(additionalField, true) : undefined;
    if (isSeq(deprecated) && isSeq(additional)) {
      return `\`fieldSpecs\` has been deprecated, please rename it to \`${additionalField}\``;
    }
    specs = readConfigFieldSpecs(isSeq(additional) ? additional : deprecated);
  } else {
    return current ? names.notACurrentConfig : `function config must be a ConfigMap or ${legacyKind}`;
  }
  if (entries.length === 0) return `input ${singular} list cannot be empty`;
  return { entries, specs: [...specs, ...names.commonSpecs] };
}

/** The field specs a SetLabels / SetAnnotations config lists (`fieldSpecs` or `additional…Fields`). */
function readConfigFieldSpecs(node: unknown): FieldSpec[] {
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

/**
 * Sets an entry as kustomize's filtersutil.SetEntry does (with yaml.NodeTagString, for labels and
 * annotations alike): a new entry is a string, double-quoted when YAML 1.1 would read it as something
 * else; an existing one takes the new value in its own style, its comments kept. The node carries no
 * `!!str` tag: a scalar set here has no source text, so the writer and the JSON round trip already
 * take it for a string, and kpt's writer would drop the core tag anyway.
 */
function setEntry(map: YAMLMap, key: string, value: string, quoteNew: boolean): void {
  const existing = pairWithKey(map, key);
  const node = newScalar(value);
  if (existing) {
    const old = existing.value;
    if (old instanceof Scalar) {
      node.type = old.type;
      copyComments(old, node);
    }
    existing.value = node;
    return;
  }
  if (quoteNew) node.type = Scalar.QUOTE_DOUBLE;
  map.items.push(readPair(newScalar(key), node));
}

/** How a release of either function runs its filter over the resources. */
export interface EntriesRun {
  /**
   * Whether resources annotated local-config stay; without it they are left out, as kunstruct's
   * resource map skips them, so kpt deletes them.
   */
  includeLocalConfig: boolean;
  /** The trip through Go maps each resource makes (see go-json-roundtrip.ts), if any. */
  trip: GoJsonTrip | undefined;
  /** Whether a resource whose root is not a mapping is passed over (set-annotations) or walked. */
  skipNonMap: boolean;
  /** Called after each entry is set, with the map it was set in (kustomize's SetEntryCallback). */
  onSet?: (doc: Document, map: YAMLMap, key: string, value: string) => void;
}

/**
 * Sets every entry of the config on every field its specs reach, in every resource, as kustomize's
 * resource map and label / annotation filter do: two resources with one id fail it, a field spec that
 * meets a value it cannot walk through fails it; nothing is reported on success.
 */
export function setEntries(
  input: ResourceList,
  ctx: FunctionContext,
  cfg: EntriesConfig,
  run: EntriesRun,
): ResourceList {
  const items = run.includeLocalConfig ? input.items : withoutLocalConfig(input.items);
  const clash = duplicateResourceId(items);
  if (clash) {
    input.results.push(errorResult(`failed to run function: ${clash}`));
    return input;
  }
  const apply = entriesApplier(cfg, run);
  for (let i = 0; i < items.length; i++) {
    ctx.signal?.throwIfAborted();
    const failure = apply(items[i]!); // i < items.length
    if (failure !== undefined) {
      input.results.push(errorResult(failure));
      return input;
    }
  }
  input.items = items;
  return input;
}

/**
 * setEntries by item, where every resource stays and none goes through JSON (set-annotations v0.1.4):
 * a resource's share is its id as it came, and the run reports nothing. Two resources of one id (the
 * run then changes nothing) or a transformer error (it stops there) are for the whole list to report.
 */
export function entriesSplit(cfg: EntriesConfig, run: EntriesRun): ItemSplit | undefined {
  if (run.trip || !run.includeLocalConfig) return undefined;
  const compiled = compiledSpecs(cfg);
  const apply = entriesApplier(cfg, run, compiled);
  const rerun = entriesRerun(cfg, compiled.specs);
  const { selecting } = compiled;
  return {
    item(doc) {
      const id = resourceIdKey(doc);
      // Where a map above the entries is missing, the run adds it (its Rerun then says so).
      const made = rerun && selecting(apiVersionOf(doc), kindOf(doc)).some((c) => !parentsThere(doc, c));
      if (apply(doc) !== undefined) return { failed: id };
      return made ? { made: id } : id;
    },
    combine(shares) {
      const seen = new Set<unknown>();
      for (const share of shares) {
        const id = typeof share === "string" ? share : (share as { made?: string }).made;
        if (id === undefined || seen.has(id)) return undefined;
        seen.add(id);
      }
      return [];
    },
    ...(rerun ? { rerun } : {}),
  };
}

/** Whether every map above the entries' map of `c` is in the resource. */
function parentsThere(doc: Document, c: CompiledFieldSpec): boolean {
  let node: unknown = doc.contents;
  for (let i = 0; i < c.segments.length - 1; i++) {
    if (!isMap(node)) return false;
    node = node.get(c.segments[i]!.name, true); // i < segments.length
  }
  return isMap(node);
}

/**
 * A run over its own output, where every spec adds what is missing and none walks a sequence (the
 * catalog's set-annotations specs): each entry is set again to the value it holds, in the map the first
 * run set it in or added, and the run reports nothing; the share is the resource's id as before (the
 * maps it added are there now). It reads the resource's id and writes the entries; it adds each spec's
 * map, and the maps above it where the first run found them missing.
 */
function entriesRerun(cfg: EntriesConfig, specs: readonly CompiledFieldSpec[]): Rerun | undefined {
  if (cfg.specs.some((s) => !s.create || s.path.includes("[]"))) return undefined;
  const paths = specs.map((c) => c.segments.map((g) => g.name));
  const writes: FieldPattern[] = paths.flatMap((p) => cfg.entries.map(([key]) => [...p, key]));
  const maps: FieldPattern[] = paths;
  const above: FieldPattern[] = [
    ...maps,
    ...paths.flatMap((p) => p.slice(0, -1).map((_, i) => p.slice(0, i + 1))),
  ];
  const reads: FieldPattern[] = [...ID_FIELDS, ...writes];
  return {
    again: (share) => (typeof share === "string" ? share : (share as { made: string }).made),
    reads: () => reads,
    writes: () => writes,
    creates: (share) => (typeof share === "string" ? maps : above),
  };
}

/**
 * The config's field specs compiled, and those that select a kind of resource, worked out once per
 * apiVersion and kind.
 */
function compiledSpecs(cfg: EntriesConfig) {
  const specs = cfg.specs.map(compileFieldSpec);
  const selecting = perKind((apiVersion, kind) => {
    const target = specTarget(apiVersion, kind);
    return specs.filter((c) => fieldSpecSelects(c.spec, target));
  });
  return { specs, selecting };
}

/** Sets the config's entries in one resource: the failure's message, or undefined. */
function entriesApplier(
  cfg: EntriesConfig,
  run: EntriesRun,
  { selecting }: ReturnType<typeof compiledSpecs> = compiledSpecs(cfg),
): (doc: Document) => string | undefined {
  let current: Document | undefined;
  const onSet = run.onSet;
  const setters = cfg.entries.map(([key, value]) => {
    // Whether a new entry is quoted depends on the value alone: asked once, not at each field set.
    const quoteNew = isYaml11NonString(value);
    return (map: YAMLMap): void => {
      setEntry(map, key, value, quoteNew);
      if (onSet && current) onSet(current, map, key, value);
    };
  });
  return (doc) => {
    if (run.skipNonMap && !isMap(doc.contents)) return undefined;
    const before = run.trip ? doc.clone() : undefined;
    // What a spec selects is read before any entry is set (no entry's path reaches apiVersion or kind
    // of the resource itself: the specs walk below its fields, never to its top-level scalars).
    const selected = selecting(apiVersionOf(doc), kindOf(doc));
    current = doc;
    try {
      for (let e = 0; e < setters.length; e++) {
        //  e < setters.length, c < selected.length
        for (let c = 0; c < selected.length; c++) applyCompiledFieldSpec(doc, selected[c]!, setters[e]!);
      }
    } catch (err) {
      if (!(err instanceof FieldSpecError)) throw err;
      return `failed to run function: failed to run transformer: ${err.message}`;
    }
    if (run.trip && before) {
      jsonRoundTrip(doc, run.trip);
      syncOrder(before.contents as Node | null, doc.contents as Node | null);
    }
    return undefined;
  };
}
