import { type Document, isMap, isScalar, isSeq, type YAMLMap } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import { indexAnnotation, pathAnnotation } from "../../kpt/resource.js";
import { atLeast } from "../releases.js";
import type { BuiltinFunction, FunctionResult } from "../types.js";
import { catalogFunction, refuseAsResult } from "./util/catalog-function.js";
import {
  type EntriesConfig,
  type EntriesRun,
  entriesSplit,
  readEntriesConfig,
  setEntries,
} from "./util/kustomize-entries.js";
import { COMMON_ANNOTATIONS } from "./util/kustomize-fieldspec.js";

/**
 * set-annotations, as gcr.io/kpt-fn/set-annotations:v0.1.3, v0.1.4 and ghcr.io/kptdev's v0.1.5 do it (kustomize's annotations
 * filter): adds or replaces the given annotations in `metadata.annotations` of every resource and in
 * the object metadata of pod and job templates (kustomize's commonAnnotations field specs), after the
 * config's own field specs. Reports nothing on success.
 *
 * v0.1.3 (set-annotations/v0.1.3, kustomize api v0.7.2) reads only `SetAnnotationConfig`, leaves
 * local-config resources out of its output (so kpt deletes them) and round-trips every resource through
 * JSON (quoting and numbers come out as Go prints them). v0.1.4 (set-annotations/v0.1.4) adds the
 * `SetAnnotations` kind and `additionalAnnotationFields`, keeps local config and edits resources in place.
 * v0.1.5 (ghcr.io/kptdev/krm-functions-catalog, pinned by Porch's tests; built from the catalog's master
 * of 2025, whose set-annotations code dates from "Set annotations changed files output", #662, and the
 * kustomize/kyaml bump before it, #659) reports what it set: one result per annotations field of each
 * resource, `set annotations: {"KEY":"VALUE",…}` with the field's path and the resource's file, sorted
 * as kyaml sorts results; "no annotations applied" when it set none.
 */

const CONFIG_KIND = "SetAnnotations";
const LEGACY_CONFIG_KIND = "SetAnnotationConfig";

/** The config, or the catalog's error message (with its "failed to configure function: "). */
function readSetAnnotationsConfig(config: Document | undefined, release = "v0.1.4"): EntriesConfig | string {
  const cfg = readEntriesConfig(config, {
    field: "annotations",
    kind: CONFIG_KIND,
    legacyKind: LEGACY_CONFIG_KIND,
    current: atLeast(release, "v0.1.4"),
    notACurrentConfig: `\`functionConfig\` must be a \`ConfigMap\` or \`${CONFIG_KIND}\``,
    commonSpecs: COMMON_ANNOTATIONS,
  });
  return typeof cfg === "string" ? `failed to configure function: ${cfg}` : cfg;
}

/**
 * v0.1.3 builds its resource map with kunstruct, which skips anything annotated local-config and works
 * on JSON; v0.1.4 includes local config and filters the YAML nodes themselves.
 */
function entriesRun(release: string): EntriesRun {
  const kunstruct = !atLeast(release, "v0.1.4");
  return { includeLocalConfig: !kunstruct, trip: kunstruct ? "kunstruct" : undefined, skipNonMap: true };
}

export const setAnnotations: BuiltinFunction = catalogFunction({
  name: "set-annotations",
  range: ["v0.1.3", "v0.1.5"],
  readConfig: readSetAnnotationsConfig,
  refuse: refuseAsResult(),
  run(input, cfg, release, ctx) {
    if (!atLeast(release, "v0.1.5")) return setEntries(input, ctx, cfg, entriesRun(release));
    const set = new ChangedFields();
    const out = setEntries(input, ctx, cfg, {
      ...entriesRun(release),
      onSet: (doc, map, key, value) => set.add(doc, map, key, value),
    });
    if (!out.results.some((r) => r.severity === "error")) out.results.push(...set.results());
    return out;
  },
  // v0.1.5 reports per resource and field, in one sorted list: no split by item
  split: (cfg, release) => (atLeast(release, "v0.1.5") ? undefined : entriesSplit(cfg, entriesRun(release))),
  // v0.1.4 sets each entry as a new scalar in the style of the one it replaces, or unstyled (or double-quoted):
  // no folded scalar where there was none. The file annotations stay unless the config names one of
  // them, or adds field specs (one could reach metadata itself).
  untouched(cfg, release) {
    if (!atLeast(release, "v0.1.4")) return {};
    return {
      folded: true,
      fileAnnotations:
        cfg.specs.length === COMMON_ANNOTATIONS.length &&
        !cfg.entries.some(([key]) => FILE_ANNOTATIONS.has(key)),
    };
  },
});

const FILE_ANNOTATIONS: ReadonlySet<string> = new Set([
  ANNOTATION.path,
  ANNOTATION.index,
  ANNOTATION.internalPath,
  ANNOTATION.internalIndex,
]);

/** v0.1.5's results: the annotations set in each field of each resource, keyed as the function keys them. */
class ChangedFields {
  private readonly fields = new Map<
    string,
    { path: string; index: number; field: string; set: Map<string, string> }
  >();

  add(doc: Document, map: YAMLMap, key: string, value: string): void {
    const path = pathAnnotation(doc) ?? "";
    // the function keys by the index annotation as written, and reports it as Go's Atoi reads it
    const index = indexAnnotation(doc) ?? 0;
    const field = fieldPathOf(doc.contents, map)?.join(".") ?? "";
    const id = `${path}\0${index}\0${field}`;
    let entry = this.fields.get(id);
    if (!entry) {
      entry = { path, index, field, set: new Map() };
      this.fields.set(id, entry);
    }
    entry.set.set(key, value);
  }

  results(): FunctionResult[] {
    if (this.fields.size === 0) return [{ message: "no annotations applied" }];
    const out = [...this.fields.values()].map((f) => {
      const r: FunctionResult = {
        message: `set annotations: ${goJsonObject(f.set)}`,
        field: { path: f.field },
        // kyaml's File leaves out an empty path and index 0
        file: { ...(f.path ? { path: f.path } : {}), ...(f.index ? { index: f.index } : {}) },
      };
      return { r, f };
    });
    // kyaml's Results.Sort: by file path, then index, then (one severity) the field's text
    out.sort(
      (a, b) =>
        compareText(a.f.path, b.f.path) ||
        a.f.index - b.f.index ||
        compareText(`${a.f.field} `, `${b.f.field} `),
    );
    return out.map((x) => x.r);
  }
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The keys leading from `root` to `target` (kyaml's FieldPath), or undefined if it is not below it. */
function fieldPathOf(root: unknown, target: YAMLMap): string[] | undefined {
  if (root === target) return [];
  if (isMap(root)) {
    for (const pair of root.items) {
      const below = fieldPathOf(pair.value, target);
      if (below) return [String(isScalar(pair.key) ? pair.key.value : pair.key), ...below];
    }
  } else if (isSeq(root)) {
    for (const item of root.items) {
      const below = fieldPathOf(item, target);
      if (below) return below;
    }
  }
  return undefined;
}

/** Go's json.Marshal of a map[string]string: keys sorted, HTML characters and U+2028/9 escaped. */
function goJsonObject(entries: ReadonlyMap<string, string>): string {
  const esc = (s: string) =>
    JSON.stringify(s).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  const keys = [...entries.keys()].sort(compareText);
  return `{${keys.map((k) => `${esc(k)}:${esc(entries.get(k) as string)}`).join(",")}}`;
}
