import { type Document, isMap, isScalar, isSeq, type YAMLMap } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import { apiVersionOf, isLocalConfig, kindOf, nameOf } from "../../kpt/resource.js";
import { atLeast } from "../releases.js";
import { FunctionExitError } from "../runtime/errors.js";
import type { BuiltinFunction, DecidingSplit, FieldPattern, FunctionResult, Rerun } from "../types.js";
import {
  childMap,
  childMaps,
  ensureMapAt,
  entryNode,
  entryText,
  mapAt,
  rootMap,
  setFoundStringEntry,
  setStringEntry,
  sortedEntries,
} from "./util/catalog-fields.js";
import {
  configMapData,
  type Gvk,
  gvkMatches,
  gvkOfParts,
  isEmptyConfig,
  stringEntries,
} from "./util/catalog-fnconfig.js";
import { catalogFunction, itemShares, refuseAsResult } from "./util/catalog-function.js";
import { errorResult, infoResult, warningResult } from "./util/catalog-results.js";
import { type EntriesConfig, readEntriesConfig, setEntries } from "./util/kustomize-entries.js";
import { COMMON_LABELS } from "./util/kustomize-fieldspec.js";
import { perKind } from "./util/per-kind.js";
import { annotationField, GVK_FIELDS } from "./util/rerun-fields.js";

/**
 * set-labels, as gcr.io/kpt-fn/set-labels:v0.2 does it: adds or replaces the given labels in
 * `metadata.labels` of every resource that is not local config, and in the selectors and templates the
 * kind is known to have (kustomize's commonLabels field specs): Service and ReplicationController
 * selectors, workload `spec.selector.matchLabels` and pod templates, CronJob job templates,
 * StatefulSet volume claim templates, NetworkPolicy pod selectors, pod topology spread constraints.
 * Reports `set N labels in total`, counting every label at every such field it visited.
 */

const _CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "SetLabels";

type Labels = [string, string][];

/**
 * How v0.2.x reads its config: through kpt-functions-sdk's runnerProcessor (go/fn at the versions
 * go/set-labels/v0.2.0 and set-labels/v0.2.1 pin). No config (`{}`, or kpt eval's empty ConfigMap
 * "function-input" with a `data` field) is only noted ("`FunctionConfig` is not given") and the function
 * then fails on it; a ConfigMap (any version) gives its data; a `SetLabels` of group fn.kpt.dev is decoded
 * as JSON; any other kind is an error naming its group and kind.
 */
type SetLabelsConfig = { labels: Labels; notGiven: boolean; placeholder: boolean } | { error: string };

function readSetLabelsConfig(config: Document | undefined): SetLabelsConfig {
  const placeholder = config === undefined || isPlaceholderConfig(config);
  const dataField = config?.get("data", true);
  const sdkEmpty =
    config === undefined ||
    isEmptyConfig(config) ||
    (kindOf(config) === "ConfigMap" &&
      nameOf(config) === "function-input" &&
      isMap(dataField) &&
      dataField.items.length === 0);
  if (sdkEmpty) return { labels: [], notGiven: true, placeholder };
  const { group } = groupOf(apiVersionOf(config));
  const kind = kindOf(config);
  if (group === "" && kind === "ConfigMap") {
    return { labels: sortedEntries(configMapData(config)), notGiven: false, placeholder };
  }
  if (group === "fn.kpt.dev" && kind === CONFIG_KIND) {
    const node = config.get("labels", true);
    if (node !== undefined && node !== null && !isMap(node) && !(isScalar(node) && node.value === null)) {
      const jsonType = isSeq(node) ? "array" : isScalar(node) ? jsonTypeOf(node.value) : "object";
      return {
        error: `unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal ${jsonType} into Go struct field SetLabels.labels of type map[string]string`,
      };
    }
    return { labels: sortedEntries(stringEntries(node)), notGiven: false, placeholder };
  }
  const groupKind = group === "" ? kind : `${kind}.${group}`;
  return {
    error: `unknown FunctionConfig \`${groupKind}\`, expect \`${CONFIG_KIND}.fn.kpt.dev\` or \`ConfigMap.v1\``,
  };
}

/** apimachinery's ParseGroupVersion: `group/version`, or a version alone. */
function groupOf(apiVersion: string): { group: string } {
  const parts = apiVersion.split("/");
  return { group: parts.length === 2 ? (parts[0] ?? "") : "" };
}

function jsonTypeOf(value: unknown): string {
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  return "string";
}

/** set-labels' own EmptyfnConfig: kpt's placeholder, `{}` (render) or an empty ConfigMap "function-input" (eval). */
function isPlaceholderConfig(config: Document): boolean {
  if (kindOf(config) === "ConfigMap" && nameOf(config) === "function-input")
    return configMapData(config).size === 0;
  return kindOf(config) === "" && nameOf(config) === "";
}

/** How the SDK's main fails a run that returned false: exit code 1 and this line on stderr. */
function sdkFailure(results: FunctionResult[]): FunctionExitError {
  return new FunctionExitError(
    'function "set-labels" failed with exit code 1',
    1,
    "failed to evaluate function: error: function failure",
    results,
  );
}

// The paths every resource, or every workload, has its labels set at (made once, not at each call).
const METADATA_LABELS = ["metadata", "labels"] as const;
const SPEC_SELECTOR = ["spec", "selector"] as const;
const SPEC_MATCH_LABELS = ["spec", "selector", "matchLabels"] as const;
const SPEC_POD_SELECTOR = ["spec", "podSelector", "matchLabels"] as const;
const SELECTOR_MATCH_LABELS = ["selector", "matchLabels"] as const;
const LABEL_SELECTOR = ["labelSelector", "matchLabels"] as const;
const POD_SELECTOR = ["podSelector", "matchLabels"] as const;
const AFFINITIES = ["podAffinity", "podAntiAffinity"] as const;

class LabelSetter {
  count = 0;

  constructor(
    private readonly doc: Document,
    private readonly labels: Labels,
  ) {}

  /** Sets each label at `path` under `base`: an existing one is replaced, a missing one added when `create`. */
  update(base: YAMLMap | undefined, path: readonly string[], create: boolean): void {
    if (!base) return;
    let target = mapAt(base, path);
    const labels = this.labels;
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!; // i < labels.length
      const key = label[0];
      const value = label[1];
      this.count += 1;
      // The entry is looked up once, for what it holds and for setting it.
      const node = target ? entryNode(target, key) : undefined;
      const existing = entryText(node);
      if (existing === undefined ? !create : existing === value) continue;
      if (target) {
        setFoundStringEntry(target, key, node, value);
        continue;
      }
      target = ensureMapAt(this.doc, base, path);
      if (target) setStringEntry(this.doc, target, key, value);
    }
  }

  meta(base: YAMLMap | undefined): void {
    this.update(base, METADATA_LABELS, true);
  }

  pod(template: YAMLMap | undefined): void {
    if (!template) return;
    this.meta(template);
    const spec = childMap(template, "spec");
    if (!spec) return;
    for (const constraint of childMaps(spec, "topologySpreadConstraints")) {
      this.update(constraint, LABEL_SELECTOR, false);
    }
    const affinity = childMap(spec, "affinity");
    if (!affinity) return;
    for (const kind of AFFINITIES) {
      // The catalog looks for the terms on `affinity` itself, not under podAffinity (kept as it is).
      if (!childMap(affinity, kind)) continue;
      for (const term of childMaps(affinity, "preferredDuringSchedulingIgnoredDuringExecution")) {
        this.update(childMap(term, "podAffinityTerm"), LABEL_SELECTOR, false);
      }
      for (const term of childMaps(affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
        this.update(term, LABEL_SELECTOR, false);
      }
    }
  }

  job(jobTemplate: YAMLMap | undefined): void {
    if (!jobTemplate) return;
    this.meta(jobTemplate);
    const spec = childMap(jobTemplate, "spec");
    this.update(spec, SELECTOR_MATCH_LABELS, false);
    this.pod(childMap(spec, "template"));
  }

  /** Sets the labels in a resource of this group, version and kind (read before any label is set). */
  resource(root: YAMLMap, k: LabelKind): void {
    this.meta(root);
    if (k.service || k.rc) this.update(root, SPEC_SELECTOR, true);
    if (k.workload || k.statefulSet) this.update(root, SPEC_MATCH_LABELS, true);
    else if (k.job || k.pdb) this.update(root, SPEC_MATCH_LABELS, false);
    if (k.networkPolicy) this.update(root, SPEC_POD_SELECTOR, false);
    const spec = childMap(root, "spec");
    if (!spec) return;
    if (k.rc || k.workload || k.statefulSet || k.job) this.pod(childMap(spec, "template"));
    if (k.cronJob) this.job(childMap(spec, "jobTemplate"));
    if (k.statefulSet) {
      for (const claim of childMaps(spec, "volumeClaimTemplates")) {
        this.meta(claim);
        this.update(claim, SELECTOR_MATCH_LABELS, false);
      }
    }
    if (k.networkPolicy) {
      for (const rule of childMaps(spec, "ingress")) {
        for (const peer of childMaps(rule, "from")) this.update(peer, POD_SELECTOR, false);
      }
      for (const rule of childMaps(spec, "egress")) {
        for (const peer of childMaps(rule, "to")) this.update(peer, POD_SELECTOR, false);
      }
    }
  }
}

/** Which of the fields a kind has its labels set at (as the group, version and kind match them). */
interface LabelKind {
  service: boolean;
  rc: boolean;
  workload: boolean;
  statefulSet: boolean;
  job: boolean;
  pdb: boolean;
  networkPolicy: boolean;
  cronJob: boolean;
}

function labelKind(gvk: Gvk): LabelKind {
  return {
    service: gvkMatches(gvk, "", "v1", "Service"),
    rc: gvkMatches(gvk, "", "v1", "ReplicationController"),
    workload:
      gvkMatches(gvk, "", "", "Deployment") ||
      gvkMatches(gvk, "", "", "ReplicaSet") ||
      gvkMatches(gvk, "", "", "DaemonSet"),
    statefulSet: gvkMatches(gvk, "apps", "", "StatefulSet"),
    job: gvkMatches(gvk, "batch", "", "Job"),
    pdb: gvkMatches(gvk, "policy", "", "PodDisruptionBudget"),
    networkPolicy: gvkMatches(gvk, "networking.k8s.io", "", "NetworkPolicy"),
    cronJob: gvkMatches(gvk, "batch", "", "CronJob"),
  };
}

/**
 * The run by item, for a config with labels to set: a resource's share is the labels it set, or
 * "local" for local config (left alone). The run counts them in total, or finds no input resources.
 */
function labelsSplit(cfg: Extract<SetLabelsConfig, { labels: Labels }>): DecidingSplit | undefined {
  if (cfg.placeholder || cfg.labels.length === 0) return undefined;
  const labels = cfg.labels;
  // What each apiVersion and kind has its labels set at, worked out once per run, not per resource.
  const kindOfHead = perKind((apiVersion, kind) => labelKind(gvkOfParts(apiVersion, kind)));
  return {
    item(doc) {
      if (isLocalConfig(doc)) return "local";
      const root = rootMap(doc);
      if (!root) return 0;
      const setter = new LabelSetter(doc, labels);
      setter.resource(root, kindOfHead(apiVersionOf(doc), kindOf(doc)));
      return setter.count;
    },
    combine(shares) {
      const results = cfg.notGiven ? [infoResult("`FunctionConfig` is not given")] : [];
      let objects = 0;
      let count = 0;
      for (const share of shares) {
        if (share === "local") continue;
        objects++;
        count += share as number;
      }
      results.push(infoResult(objects === 0 ? "no input resources" : `set ${count} labels in total`));
      return results;
    },
    rerun: labelsRerun(labels),
  };
}

/**
 * A run over its own output sets each label again to the value it holds (and counts it: the count is of
 * labels set, changed or not), at the same fields: which fields is decided by the kind and by which of
 * the maps it looks for are there, and the maps it adds (metadata, spec, the selector) are ones it sets
 * the labels in whatever it finds. So the share is the same.
 */
function labelsRerun(labels: Labels): Rerun {
  const writes: FieldPattern[] = [];
  for (const [key] of labels) for (const map of LABEL_MAPS) writes.push(["**", map, key]);
  const reads: FieldPattern[] = [
    ...GVK_FIELDS,
    annotationField(ANNOTATION.localConfig),
    ...LOOKED_FOR.map((name): FieldPattern => ["**", name]),
    ...LOOKED_FOR_LISTS.map((name): FieldPattern => ["**", name, "*"]),
    ...writes,
  ];
  return { again: (share) => share, reads: () => reads, writes: () => writes, creates: () => LABELS_CREATES };
}

/** The maps a label is set in. */
const LABEL_MAPS = ["labels", "selector", "matchLabels"];

/** The sequences of maps LabelSetter looks for, by name, wherever they are (their elements too). */
const LOOKED_FOR_LISTS = [
  "topologySpreadConstraints",
  "preferredDuringSchedulingIgnoredDuringExecution",
  "requiredDuringSchedulingIgnoredDuringExecution",
  "volumeClaimTemplates",
  "ingress",
  "egress",
  "from",
  "to",
];

/** The maps (and sequences) LabelSetter looks for, by name, wherever they are. */
const LOOKED_FOR = [
  "metadata",
  "labels",
  "spec",
  "template",
  "jobTemplate",
  "selector",
  "matchLabels",
  "podSelector",
  "labelSelector",
  "affinity",
  ...AFFINITIES,
  "podAffinityTerm",
  ...LOOKED_FOR_LISTS,
];

/** What a run may add where missing: metadata and its labels (of the resource or a template), the spec and its selector. */
const LABELS_CREATES: readonly FieldPattern[] = [
  ["**", "metadata"],
  ["**", "metadata", "labels"],
  ["spec"],
  ["spec", "selector"],
  ["spec", "selector", "matchLabels"],
];

export const setLabels: BuiltinFunction = catalogFunction({
  name: "set-labels",
  range: ["v0.2.0", "v0.2.1"],
  readConfig: (config) => {
    const cfg = readSetLabelsConfig(config);
    return "error" in cfg ? cfg.error : cfg;
  },
  refuse(message, input) {
    input.results.push(errorResult(message));
    throw sdkFailure(input.results);
  },
  run(input, cfg, _release, ctx) {
    const split = labelsSplit(cfg);
    if (split) {
      input.results.push(...split.combine(itemShares(input.items, split, ctx)));
      return input;
    }
    if (cfg.notGiven) input.results.push(infoResult("`FunctionConfig` is not given"));
    if (input.items.every(isLocalConfig)) {
      input.results.push(infoResult("no input resources"));
      return input;
    }
    if (cfg.placeholder) throw sdkFailure(input.results);
    input.results.push(warningResult("no `labels` arguments are given in FunctionConfig"));
    return input;
  },
  split: labelsSplit,
  // It writes label maps at fixed paths (never metadata.annotations), each value an existing scalar's
  // new value or a new unstyled scalar.
  untouched: () => ({ folded: true, fileAnnotations: true }),
});

/*
 * set-labels v0.1.3–v0.1.5 (catalog tags set-labels/v0.1.3, go/set-labels/v0.1.4, set-labels/v0.1.5):
 * kustomize's label transformer. Every label goes to every field of kustomize's commonLabels field specs
 * (after the config's own specs), on every resource, the Kptfile included; nothing is reported on
 * success. The resources go through kustomize's resource map, which round-trips them through JSON
 * (quoting and numbers come out as Go prints them) and, before v0.1.5, leaves out local-config
 * resources, so kpt deletes them.
 */

const LEGACY_CONFIG_KIND = "SetLabelConfig";

/** The config's labels (sorted) and field specs, or the error the function reports. */
function readKustomizeLabelsConfig(config: Document | undefined, release: string): EntriesConfig | string {
  return readEntriesConfig(config, {
    field: "labels",
    kind: CONFIG_KIND,
    legacyKind: LEGACY_CONFIG_KIND,
    // v0.1.5 (set-labels/v0.1.5) added the SetLabels kind and `additionalLabelFields`.
    current: atLeast(release, "v0.1.5"),
    notACurrentConfig: `\`functionConfig\` must be either a \`ConfigMap\` or \`${CONFIG_KIND}\``,
    commonSpecs: COMMON_LABELS,
  });
}

export const setLabelsKustomize: BuiltinFunction = catalogFunction({
  name: "set-labels",
  range: ["v0.1.3", "v0.1.5"],
  readConfig: readKustomizeLabelsConfig,
  refuse: refuseAsResult("failed to configure function: "),
  run(input, cfg, release, ctx) {
    // v0.1.5 (set-labels/v0.1.5) set IncludeLocalConfigs; before it kustomize skipped any resource
    // carrying the local-config annotation, whatever its value. Every release round-trips the
    // resources, v0.1.5 through kyaml's RNodes.
    const current = atLeast(release, "v0.1.5");
    return setEntries(input, ctx, cfg, {
      includeLocalConfig: current,
      trip: current ? "kyaml" : "kunstruct",
      skipNonMap: false,
    });
  },
});
