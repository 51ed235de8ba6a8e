import { type Document, isMap, isScalar, isSeq } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import {
  apiGroup,
  apiVersionOf,
  getAnnotation,
  isLocalConfig,
  kindOf,
  nameOf,
  setAnnotation,
  setStringIn,
} from "../../kpt/resource.js";
import type { BuiltinFunction, FunctionContext, FunctionResult, ResourceList } from "../types.js";
import { configMapData, isConfigMap, isEmptyConfig, isGVK, topString } from "./util/catalog-fnconfig.js";
import {
  DEFAULT_NAMESPACE,
  declaredNamespace,
  formatOrigin,
  type OriginId,
  UNKNOWN_NAMESPACE,
  upstreamOrigin,
} from "./util/catalog-origin.js";
import {
  configErrorResult,
  errorResult,
  goList,
  goQuote,
  infoResult,
  sortedSet,
  warningResult,
} from "./util/catalog-results.js";
import { knownNamespaceScope } from "./util/catalog-scope.js";

/**
 * set-namespace, as gcr.io/kpt-fn/set-namespace:v0.4 does it: replaces the namespace of every
 * namespaced resource, the name of the Namespace object, the namespace of ServiceAccount subjects in
 * (Cluster)RoleBindings, of a CRD's conversion webhook service and of an APIService's service, and the
 * namespace segment of `config.kubernetes.io/depends-on` annotations that point at a changed resource.
 * Local-config resources and the Kptfile are left alone. Without `namespaceMatcher`, every namespaced
 * resource must come from a single upstream namespace.
 */

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "SetNamespace";
/** The package-context ConfigMap kpt generates: its `data.name` is the namespace. */
const PACKAGE_CONTEXT_NAME = "kptfile.kpt.dev";
const NAMESPACED_DEPENDS_ON = /^([-.\w]*)\/namespaces\/([-.\w]*)\/([-.\w]*)\/([-.\w]*)$/;

interface SetNamespaceConfig {
  namespace: string;
  matcher: string;
}

/** The config, or the catalog's error message for a bad one. */
export function readSetNamespaceConfig(config: Document | undefined): SetNamespaceConfig | string {
  if (!config || isEmptyConfig(config)) {
    return "FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`";
  }
  if (isConfigMap(config)) {
    const data = configMapData(config);
    const matcher = data.get("namespaceMatcher") ?? "";
    const namespace = data.get("namespace") ?? "";
    if (namespace !== "") return { namespace, matcher };
    const isPackageContext = nameOf(config) === PACKAGE_CONTEXT_NAME;
    const name = data.get("name") ?? "";
    if (isPackageContext && name !== "") return { namespace: name, matcher };
    return isPackageContext ? "`data.name` should not be empty" : "`data.namespace` should not be empty";
  }
  if (isGVK(config, CONFIG_API_VERSION, CONFIG_KIND)) {
    const namespace = topString(config, "namespace");
    if (namespace === "") return "`namespace` should not be empty";
    return { namespace, matcher: topString(config, "namespaceMatcher") };
  }
  return (
    `unknown functionConfig Kind=${kindOf(config)} ApiVersion=${apiVersionOf(config)}, ` +
    "expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`"
  );
}

/** A resource the function works on, with its scope decided once. */
interface Target {
  doc: Document;
  apiVersion: string;
  kind: string;
  name: string;
  /** `metadata.namespace` as written before the change, undefined when absent. */
  namespace: string | undefined;
  upstream: OriginId | undefined;
  /** Namespaced kinds, and kinds the scope table does not know (v0.4.1 gives those a namespace too). */
  namespaced: boolean;
}

function target(doc: Document): Target {
  const apiVersion = apiVersionOf(doc);
  const kind = kindOf(doc);
  return {
    doc,
    apiVersion,
    kind,
    name: nameOf(doc),
    namespace: declaredNamespace(doc),
    upstream: upstreamOrigin(doc),
    namespaced: knownNamespaceScope(apiVersion, kind) ?? true,
  };
}

/** The SDK's ShortString of the resource as it was before the change. */
function describe(t: Target): string {
  return `Resource(apiVersion=${t.apiVersion}, kind=${t.kind}, namespace=${t.namespace ?? ""}, name=${t.name})`;
}

function isKptfile(doc: Document): boolean {
  return kindOf(doc) === "Kptfile" && apiVersionOf(doc).startsWith("kpt.dev/");
}

/** Counts and collects the changes of one run (the Go code's visitor closure). */
class NamespaceWalk {
  count = 0;
  readonly oldNamespaces = new Set<string>();
  readonly results: FunctionResult[] = [];

  constructor(
    private readonly newNamespace: string,
    private readonly matcher: string,
  ) {}

  /** The value a namespace field takes: `current` ("" when unset) whose resource came from `origin`. */
  visit(origin: string, current: string, id?: () => string): string {
    if (origin === UNKNOWN_NAMESPACE) return current;
    const value = current === "" ? DEFAULT_NAMESPACE : current;
    if (value === this.newNamespace) return value;
    let change = this.matcher === "";
    if (!change) {
      if (this.matcher === origin) {
        this.results.push(
          infoResult(`${goList(id === undefined ? [] : [id()])} has matching origin ${origin}`),
        );
      }
      change = this.matcher === value || this.matcher === origin;
    }
    if (!change) return value;
    this.oldNamespaces.add(value);
    this.count += 1;
    return this.newNamespace;
  }
}

/** Visits the scalar at `path` (absent counts as ""), writing it back only when its value changes. */
function visitField(
  walk: NamespaceWalk,
  doc: Document,
  path: readonly (string | number)[],
  origin: string,
  id?: () => string,
): void {
  const node = doc.getIn(path, true);
  const before = isScalar(node) && node.value !== null && node.value !== undefined ? String(node.value) : "";
  const after = walk.visit(origin, before, id);
  if (after !== before) setStringIn(doc, path, after);
}

/** Subjects that carry a `namespace` key. */
function visitSubjects(walk: NamespaceWalk, doc: Document): void {
  const subjects = doc.get("subjects", true);
  if (!isSeq(subjects)) return;
  subjects.items.forEach((subject, i) => {
    if (isMap(subject) && subject.has("namespace")) visitField(walk, doc, ["subjects", i, "namespace"], "");
  });
}

function visitClusterScoped(walk: NamespaceWalk, t: Target): void {
  const { doc, apiVersion, kind } = t;
  if (apiVersion === "v1" && kind === "Namespace") {
    const origin = t.upstream?.name ?? t.name;
    visitField(walk, doc, ["metadata", "name"], origin, () => describe(t));
  } else if (apiVersion === "apiextensions.k8s.io/v1" && kind === "CustomResourceDefinition") {
    const conversion = ["spec", "conversion"];
    const strategy = doc.getIn([...conversion, "strategy"]);
    const service = doc.getIn([...conversion, "webhook", "clientConfig", "service"], true);
    if (strategy === "Webhook" && isMap(service)) {
      visitField(walk, doc, [...conversion, "webhook", "clientConfig", "service", "namespace"], "");
    }
  } else if (apiVersion === "apiregistration.k8s.io/v1" && kind === "APIService") {
    if (isMap(doc.getIn(["spec", "service"], true)))
      visitField(walk, doc, ["spec", "service", "namespace"], "");
  } else if (kind === "ClusterRoleBinding" || kind === "RoleBinding") {
    visitSubjects(walk, doc);
  }
}

function visitNamespaced(walk: NamespaceWalk, t: Target): void {
  const origin = t.upstream?.namespace ?? t.namespace ?? DEFAULT_NAMESPACE;
  visitField(walk, t.doc, ["metadata", "namespace"], origin, () => describe(t));
  if (t.kind === "RoleBinding") visitSubjects(walk, t.doc);
}

/** The depends-on references of every resource before the change (namespaced resources only). */
function dependsOnTargets(targets: readonly Target[]): Set<string> {
  const keys = new Set<string>();
  for (const t of targets) {
    const namespace = t.namespace ?? (t.namespaced ? DEFAULT_NAMESPACE : UNKNOWN_NAMESPACE);
    if (namespace !== UNKNOWN_NAMESPACE)
      keys.add(`${apiGroup(t.apiVersion)}/namespaces/${namespace}/${t.kind}/${t.name}`);
  }
  return keys;
}

function updateDependsOn(
  targets: readonly Target[],
  before: Set<string>,
  cfg: SetNamespaceConfig,
): FunctionResult {
  let count = 0;
  const old = new Set<string>();
  for (const { doc } of targets) {
    const value = getAnnotation(doc, ANNOTATION.dependsOn);
    if (!value || !NAMESPACED_DEPENDS_ON.test(value) || !before.has(value)) continue;
    const segments = value.split("/");
    const namespace = segments[2] ?? "";
    if (namespace === cfg.namespace) continue;
    if (cfg.matcher !== "" && cfg.matcher !== namespace) continue;
    old.add(namespace);
    segments[2] = cfg.namespace;
    count += 1;
    setAnnotation(doc, ANNOTATION.dependsOn, segments.join("/"));
  }
  if (count === 0) return infoResult("all `depends-on` annotations are up-to-date. no `namespace` changed");
  return infoResult(
    `\`depends-on\` annotation namespace ${goList(sortedSet(old))} updated to ${goQuote(cfg.namespace)}, ${count} value(s) changed`,
  );
}

/**
 * Upstream namespaces of the namespaced resources; a warning for each resource with no recorded
 * upstream. Returns an error message when an origin is inconsistent.
 */
function listOrigins(targets: readonly Target[], results: FunctionResult[]): string[] | string {
  const origins = new Set<string>();
  for (const t of targets) {
    const upstream = t.upstream;
    if (!upstream) {
      results.push(warningResult(`${describe(t)} does not have upstream origin.`));
      continue;
    }
    if (!t.namespaced) continue;
    if (upstream.namespace === UNKNOWN_NAMESPACE) {
      return `${describe(t)} is namespace-scoped, but has cluster-scoped or unknown scoepd origin ${formatOrigin(upstream)}`;
    }
    origins.add(upstream.namespace);
  }
  return sortedSet(origins);
}

function transform(
  targets: readonly Target[],
  cfg: SetNamespaceConfig,
  ctx: FunctionContext,
): FunctionResult[] {
  const results: FunctionResult[] = [];
  const before = dependsOnTargets(targets);
  const origins = listOrigins(targets, results);
  if (typeof origins === "string") return [errorResult(origins)];
  if (cfg.matcher === "" && origins.length > 1) {
    return [
      errorResult(
        `unable to use origin \`namespace\` to match. expect a single upstream namespace, found ${goList(origins)}. ` +
          "please switch to use `namespaceMatcher`to specify the namespace value you want to change",
      ),
    ];
  }
  const walk = new NamespaceWalk(cfg.namespace, cfg.matcher);
  for (const target of targets) {
    if (!target.namespaced) visitClusterScoped(walk, target);
  }
  for (const target of targets) {
    ctx.signal?.throwIfAborted();
    if (target.namespaced) visitNamespaced(walk, target);
  }
  results.push(...walk.results);
  results.push(
    walk.count === 0
      ? infoResult(`all matching namespaces are already ${goQuote(cfg.namespace)}. no value changed`)
      : infoResult(
          `namespace ${goList(sortedSet(walk.oldNamespaces))} updated to ${goQuote(cfg.namespace)}, ${walk.count} value(s) changed`,
        ),
  );
  results.push(updateDependsOn(targets, before, cfg));
  return results;
}

/**
 * Not registered: this follows the catalog's main branch after v0.4.1 (origin matching, July 2022), which
 * no release tag contains; set-namespace-sdk.ts reproduces v0.4.0–v0.4.1 as tagged. Kept for the release
 * that would carry it.
 */
export const setNamespace: BuiltinFunction = {
  name: "set-namespace",
  releases: [],
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    const cfg = readSetNamespaceConfig(input.functionConfig);
    if (typeof cfg === "string") {
      input.results.push(configErrorResult(cfg, input.functionConfig));
      return input;
    }
    const targets: Target[] = [];
    for (const doc of input.items) {
      if (isLocalConfig(doc) || isKptfile(doc)) continue;
      targets.push(target(doc));
    }
    input.results.push(...transform(targets, cfg, ctx));
    return input;
  },
};
