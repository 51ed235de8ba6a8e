import { type Document, isMap, isScalar, isSeq, Pair, Scalar, YAMLMap } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import { apiVersionOf, getAnnotations, kindOf, nameOf } from "../../kpt/resource.js";
import { atLeast } from "../releases.js";
import { FunctionExitError } from "../runtime/errors.js";
import type { BuiltinFunction } from "../types.js";
import { configMapData, isConfigMap, isGVK, splitApiVersion, topString } from "./util/catalog-fnconfig.js";
import { catalogFunction } from "./util/catalog-function.js";
import { errorResult } from "./util/catalog-results.js";
import { knownNamespaceScope } from "./util/catalog-scope.js";
import { jsonRoundTrip } from "./util/go-json-roundtrip.js";
import { type FieldSpec, splitFieldSpecPath } from "./util/kustomize-fieldspec.js";

/**
 * set-namespace v0.1.0–v0.2.0, the catalog's function built on kustomize's namespace transformer: every
 * resource not known to be cluster-scoped gets `metadata.namespace` (the Kptfile too), a Namespace object
 * is renamed, RoleBinding and ClusterRoleBinding subjects named `default` get the namespace, and so does
 * an APIService's `spec.service`, plus the config's own field specs. No result is reported on success.
 * Each resource makes a trip through Go maps (see go-json-roundtrip.ts).
 *
 * Release switches, each with the catalog tag that introduced it:
 * - set-namespace/v0.1.4: kustomize api v0.8.11 (an RNode resource map): resources annotated
 *   `config.kubernetes.io/local-config` stay (v0.1.0–v0.1.3 drop them, so kpt deletes them), a CRD's
 *   conversion webhook service gets the namespace, the config kind may be `SetNamespace` with
 *   `additionalNamespaceFields`, and numbers come back as Go float64s.
 * - set-namespace/v0.2.0: a subject of kind ServiceAccount gets the namespace when the ServiceAccount it
 *   names is among the resources.
 */

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const LEGACY_KIND = "SetNamespaceConfig";
const KIND = "SetNamespace";

interface Config {
  namespace: string;
  fieldSpecs: FieldSpec[];
}

/** kustomize's built-in namespace field specs (builtinpluginconsts/namespace.go), minus the ones it hard-codes. */
function defaultFieldSpecs(release: string): FieldSpec[] {
  const specs: FieldSpec[] = [
    { group: "", version: "", kind: "Namespace", path: "metadata/name", create: true },
    {
      group: "apiregistration.k8s.io",
      version: "",
      kind: "APIService",
      path: "spec/service/namespace",
      create: true,
    },
  ];
  if (atLeast(release, "v0.1.4")) {
    specs.push({
      group: "apiextensions.k8s.io",
      version: "",
      kind: "CustomResourceDefinition",
      path: "spec/conversion/webhook/clientConfig/service/namespace",
      create: false,
    });
  }
  return specs;
}

function readFieldSpecs(node: unknown): FieldSpec[] | undefined {
  if (!isSeq(node)) return undefined;
  const specs: FieldSpec[] = [];
  for (const item of node.items) {
    if (!isMap(item)) continue;
    const field = (key: string): string => {
      const v = item.get(key, true);
      return isScalar(v) && v.value !== null && v.value !== undefined ? String(v.value) : "";
    };
    const create = item.get("create", true);
    specs.push({
      group: field("group"),
      version: field("version"),
      kind: field("kind"),
      path: field("path"),
      create: isScalar(create) && create.value === true,
    });
  }
  return specs;
}

/** The config, or the error message the function fails with. */
function readKustomizeNamespaceConfig(config: Document | undefined, release: string): Config | string {
  const modern = atLeast(release, "v0.1.4");
  let namespace = "";
  let fieldSpecs: FieldSpec[] = [];
  if (config && isConfigMap(config)) {
    namespace = configMapData(config).get("namespace") ?? "";
  } else if (
    config &&
    (isGVK(config, CONFIG_API_VERSION, LEGACY_KIND) || (modern && isGVK(config, CONFIG_API_VERSION, KIND)))
  ) {
    namespace = topString(config, "namespace");
    const legacy = readFieldSpecs(config.get("fieldSpecs", true));
    if (modern) {
      const additional = readFieldSpecs(config.get("additionalNamespaceFields", true));
      if (additional && legacy) {
        return "`fieldSpecs` has been deprecated, please rename it to `additionalLabelFields`";
      }
      fieldSpecs = additional ?? legacy ?? [];
    } else {
      fieldSpecs = legacy ?? [];
    }
  } else {
    return modern
      ? "`functionConfig` must be a `ConfigMap` or `SetNamespace`"
      : "function config must be a ConfigMap or SetNamespaceConfig";
  }
  if (namespace === "") return "input namespace cannot be empty";
  return { namespace, fieldSpecs: [...fieldSpecs, ...defaultFieldSpecs(release)] };
}

/** kustomize's removeFieldSpecsForHacks: the specs it implements by hand instead. */
function isHardCoded(fs: FieldSpec): boolean {
  if (fs.path === "metadata/namespace") return true;
  return (fs.kind === "RoleBinding" || fs.kind === "ClusterRoleBinding") && fs.path === "subjects";
}

function matchesGvk(doc: Document, fs: FieldSpec): boolean {
  if (fs.kind !== "" && fs.kind !== kindOf(doc)) return false;
  const { group, version } = splitApiVersion(apiVersionOf(doc));
  if (fs.group !== "" && fs.group !== group) return false;
  return fs.version === "" || fs.version === version;
}

function isNull(node: unknown): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

/** Sets `key` of `map` to the string `value`, appending the key when absent. */
function setString(map: YAMLMap, key: string, value: string): void {
  const existing = (map.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === key);
  if (existing) setValue(existing, value);
  else map.items.push(new Pair(new Scalar(key), new Scalar(value)));
}

/** Gives an entry a string value; a scalar keeps its node (kpt copies the input's comments back anyway). */
function setValue(pair: Pair, value: string): void {
  if (isScalar(pair.value)) pair.value.value = value;
  else pair.value = new Scalar(value);
}

/** kustomize's field spec filter: walks `path` from `node`, over every element of a sequence met. */
function applyPath(node: unknown, path: readonly string[], create: boolean, value: string): void {
  if (path.length === 0 || isNull(node)) return;
  if (isSeq(node)) {
    for (const item of node.items) applyPath(item, path, create, value);
    return;
  }
  if (!isMap(node)) return;
  const [head, ...rest] = path as [string, ...string[]];
  const isSeqField = head.endsWith("[]");
  const name = isSeqField ? head.slice(0, -2) : head;
  const pair = (node.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === name);
  if (rest.length === 0) {
    if (pair) setValue(pair, value);
    else if (create && !isSeqField) node.items.push(new Pair(new Scalar(name), new Scalar(value)));
    return;
  }
  if (!pair) {
    if (!create || isSeqField) return;
    const created = new YAMLMap();
    node.items.push(new Pair(new Scalar(name), created));
    applyPath(created, rest, create, value);
    return;
  }
  if (isNull(pair.value) && create && !isSeqField) pair.value = new YAMLMap();
  applyPath(pair.value, rest, create, value);
}

function metadataOf(doc: Document): YAMLMap {
  const root = doc.contents as YAMLMap;
  const pair = (root.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === "metadata");
  if (pair && isMap(pair.value)) return pair.value;
  const created = new YAMLMap();
  if (pair) pair.value = created;
  else root.items.push(new Pair(new Scalar("metadata"), created));
  return created;
}

/** Sets `namespace` on the subjects of a (Cluster)RoleBinding that `pick` selects. */
function setSubjects(doc: Document, namespace: string, pick: (subject: YAMLMap) => boolean): void {
  const subjects = doc.get("subjects", true);
  if (!isSeq(subjects)) return;
  for (const subject of subjects.items) {
    if (isMap(subject) && pick(subject)) setString(subject, "namespace", namespace);
  }
}

function scalarAt(map: YAMLMap, key: string): string | undefined {
  const v = map.get(key, true);
  return isScalar(v) && typeof v.value === "string" ? v.value : undefined;
}

function isBinding(doc: Document): boolean {
  const kind = kindOf(doc);
  return kind === "RoleBinding" || kind === "ClusterRoleBinding";
}

/** kustomize's namespace filter over one resource: the hard-coded parts, then the field specs. */
function transform(doc: Document, cfg: Config): void {
  if (knownNamespaceScope(apiVersionOf(doc), kindOf(doc)) !== false) {
    setString(metadataOf(doc), "namespace", cfg.namespace);
  }
  if (isBinding(doc)) setSubjects(doc, cfg.namespace, (s) => scalarAt(s, "name") === "default");
  for (const fs of cfg.fieldSpecs) {
    if (isHardCoded(fs) || !matchesGvk(doc, fs)) continue;
    applyPath(doc.contents, splitFieldSpecPath(fs.path), fs.create, cfg.namespace);
  }
}

/** kustomize's IgnoredByKustomizeResourceAnnotation: present at all, whatever its value. */
function ignoredByKustomize(doc: Document): boolean {
  return Object.hasOwn(getAnnotations(doc), ANNOTATION.localConfig);
}

function isEmptyResource(doc: Document): boolean {
  return !isMap(doc.contents) || doc.contents.items.length === 0;
}

/**
 * The function fails as its container does: the error as its one result, and on stderr as the kyaml
 * framework of the release prints it (v0.1.3's kyaml v0.10.20 joins an empty resource reference as
 * `///`, v0.1.4's v0.10.21 leaves it out, v0.1.0–v0.1.2's v0.10.5 prints the message alone).
 */
function fail(message: string, release: string): never {
  const stderr = atLeast(release, "v0.1.4")
    ? `[error] : ${message}`
    : atLeast(release, "v0.1.3")
      ? `[error] /// : ${message}`
      : message;
  throw new FunctionExitError(message, 1, stderr, [errorResult(message)]);
}

export const setNamespaceKustomize: BuiltinFunction = catalogFunction({
  name: "set-namespace",
  range: ["v0.1.0", "v0.2.0"],
  readConfig: readKustomizeNamespaceConfig,
  refuse: (message, _input, release) => fail(`failed to configure function: ${message}`, release),
  run(input, cfg, release, ctx) {
    const keepLocalConfig = atLeast(release, "v0.1.4");
    const items = input.items.filter(
      (d) => !isEmptyResource(d) && (keepLocalConfig || !ignoredByKustomize(d)),
    );
    const serviceAccounts = new Set(items.filter((d) => kindOf(d) === "ServiceAccount").map(nameOf));
    for (const doc of items) {
      ctx.signal?.throwIfAborted();
      transform(doc, cfg);
      if (atLeast(release, "v0.2.0") && isBinding(doc)) {
        setSubjects(
          doc,
          cfg.namespace,
          (s) => scalarAt(s, "kind") === "ServiceAccount" && serviceAccounts.has(scalarAt(s, "name") ?? ""),
        );
      }
      jsonRoundTrip(doc, keepLocalConfig ? "kyaml" : "kunstruct");
    }
    input.items = items;
    return input;
  },
});
