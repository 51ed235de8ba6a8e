import type { Document, YAMLMap } from "yaml";
import { apiVersionOf, isLocalConfig, kindOf, nameOf } from "../../kpt/resource.js";
import { catalogReleases } from "../releases.js";
import type { BuiltinFunction, FunctionContext, FunctionResult, ResourceList } from "../types.js";
import {
  childMap,
  childMaps,
  rootMap,
  scalarEntry,
  setStringEntry,
  sortedEntries,
  visitMapsAt,
} from "./util/catalog-fields.js";
import {
  configMapData,
  gvkMatches,
  gvkOf,
  isConfigMap,
  isGVK,
  stringEntries,
} from "./util/catalog-fnconfig.js";
import { configErrorResult, infoResult, warningResult } from "./util/catalog-results.js";

/**
 * set-labels, as gcr.io/kpt-fn/set-labels:v0.2 does it: adds or replaces the given labels in
 * `metadata.labels` of every resource that is not local config, and in the selectors and templates the
 * kind is known to have (kustomize's commonLabels field specs): Service and ReplicationController
 * selectors, workload `spec.selector.matchLabels` and pod templates, CronJob job templates,
 * StatefulSet volume claim templates, NetworkPolicy pod selectors, pod topology spread constraints.
 * Reports `set N labels in total`, counting every label at every such field it visited.
 */

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "SetLabels";

type Labels = [string, string][];

/** The labels to set (sorted by key), or the catalog's error message for an unusable config. */
export function readSetLabelsConfig(config: Document | undefined): Labels | { error: string } | "empty" {
  if (!config || isPlaceholderConfig(config)) return "empty";
  if (isConfigMap(config)) return sortedEntries(configMapData(config));
  if (isGVK(config, CONFIG_API_VERSION, CONFIG_KIND))
    return sortedEntries(stringEntries(config.get("labels", true)));
  return {
    error: `unknown functionConfig Kind=${kindOf(config)} ApiVersion=${apiVersionOf(config)}, expect \`${CONFIG_KIND}\` or \`ConfigMap\``,
  };
}

/** kpt's placeholder when a step has no config: `{}` (render) or an empty ConfigMap "function-input" (eval). */
function isPlaceholderConfig(config: Document): boolean {
  if (kindOf(config) === "ConfigMap" && nameOf(config) === "function-input")
    return configMapData(config).size === 0;
  return kindOf(config) === "" && nameOf(config) === "";
}

class LabelSetter {
  count = 0;

  constructor(
    private readonly doc: Document,
    private readonly labels: Labels,
  ) {}

  /** Sets each label at `path` under `base`: an existing one is replaced, a missing one added when `create`. */
  update(base: YAMLMap | undefined, path: readonly string[], create: boolean): void {
    if (!base) return;
    let target: YAMLMap | undefined;
    visitMapsAt(this.doc, base, path, false, (m) => {
      target = m;
    });
    for (const [key, value] of this.labels) {
      this.count += 1;
      const existing = target ? scalarEntry(target, key) : undefined;
      if (existing === undefined ? !create : existing === value) continue;
      if (!target) visitMapsAt(this.doc, base, path, true, (m) => (target = m));
      if (target) setStringEntry(this.doc, target, key, value);
    }
  }

  meta(base: YAMLMap | undefined): void {
    this.update(base, ["metadata", "labels"], true);
  }

  pod(template: YAMLMap | undefined): void {
    if (!template) return;
    this.meta(template);
    const spec = childMap(template, "spec");
    if (!spec) return;
    for (const constraint of childMaps(spec, "topologySpreadConstraints")) {
      this.update(constraint, ["labelSelector", "matchLabels"], false);
    }
    const affinity = childMap(spec, "affinity");
    for (const kind of ["podAffinity", "podAntiAffinity"]) {
      // The catalog looks for the terms on `affinity` itself, not under podAffinity (kept as it is).
      if (!childMap(affinity, kind)) continue;
      for (const term of childMaps(affinity, "preferredDuringSchedulingIgnoredDuringExecution")) {
        this.update(childMap(term, "podAffinityTerm"), ["labelSelector", "matchLabels"], false);
      }
      for (const term of childMaps(affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
        this.update(term, ["labelSelector", "matchLabels"], false);
      }
    }
  }

  job(jobTemplate: YAMLMap | undefined): void {
    if (!jobTemplate) return;
    this.meta(jobTemplate);
    const spec = childMap(jobTemplate, "spec");
    this.update(spec, ["selector", "matchLabels"], false);
    this.pod(childMap(spec, "template"));
  }

  resource(root: YAMLMap): void {
    const gvk = gvkOf(this.doc);
    const is = (group: string, version: string, kind: string) => gvkMatches(gvk, group, version, kind);
    this.meta(root);
    const isWorkload = is("", "", "Deployment") || is("", "", "ReplicaSet") || is("", "", "DaemonSet");
    const isStatefulSet = is("apps", "", "StatefulSet");
    const isJob = is("batch", "", "Job");
    const isRC = is("", "v1", "ReplicationController");
    const isNetworkPolicy = is("networking.k8s.io", "", "NetworkPolicy");
    if (is("", "v1", "Service") || isRC) this.update(root, ["spec", "selector"], true);
    if (isWorkload || isStatefulSet) this.update(root, ["spec", "selector", "matchLabels"], true);
    else if (isJob || is("policy", "", "PodDisruptionBudget")) {
      this.update(root, ["spec", "selector", "matchLabels"], false);
    }
    if (isNetworkPolicy) this.update(root, ["spec", "podSelector", "matchLabels"], false);
    const spec = childMap(root, "spec");
    if (!spec) return;
    if (isRC || isWorkload || isStatefulSet || isJob) this.pod(childMap(spec, "template"));
    if (is("batch", "", "CronJob")) this.job(childMap(spec, "jobTemplate"));
    if (isStatefulSet) {
      for (const claim of childMaps(spec, "volumeClaimTemplates")) {
        this.meta(claim);
        this.update(claim, ["selector", "matchLabels"], false);
      }
    }
    if (isNetworkPolicy) {
      for (const rule of childMaps(spec, "ingress")) {
        for (const peer of childMaps(rule, "from")) this.update(peer, ["podSelector", "matchLabels"], false);
      }
      for (const rule of childMaps(spec, "egress")) {
        for (const peer of childMaps(rule, "to")) this.update(peer, ["podSelector", "matchLabels"], false);
      }
    }
  }
}

export const setLabels: BuiltinFunction = {
  name: "set-labels",
  releases: catalogReleases("set-labels", "v0.2.0", "v0.2.1"),
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    const objects = input.items.filter((doc) => !isLocalConfig(doc));
    if (objects.length === 0) {
      input.results.push(infoResult("no input resources"));
      return input;
    }
    const labels = readSetLabelsConfig(input.functionConfig);
    if (labels === "empty") {
      input.results.push(
        configErrorResult(
          "`functionConfig` must be either a `ConfigMap` or `SetLabels`",
          input.functionConfig,
        ),
      );
      return input;
    }
    if (!Array.isArray(labels)) {
      input.results.push(configErrorResult(labels.error, input.functionConfig));
      return input;
    }
    if (labels.length === 0) {
      input.results.push(warningResult("no `labels` arguments are given in FunctionConfig"));
      return input;
    }
    let count = 0;
    for (const doc of objects) {
      ctx.signal?.throwIfAborted();
      const root = rootMap(doc);
      if (!root) continue;
      const setter = new LabelSetter(doc, labels);
      setter.resource(root);
      count += setter.count;
    }
    const results: FunctionResult[] = [infoResult(`set ${count} labels in total`)];
    input.results.push(...results);
    return input;
  },
};
