import type { Document } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import { atLeast } from "../releases.js";
import type { BuiltinFunction } from "../types.js";
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
  range: ["v0.1.3", "v0.1.4"],
  readConfig: readSetAnnotationsConfig,
  refuse: refuseAsResult(),
  run(input, cfg, release, ctx) {
    return setEntries(input, ctx, cfg, entriesRun(release));
  },
  split: (cfg, release) => entriesSplit(cfg, entriesRun(release)),
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
