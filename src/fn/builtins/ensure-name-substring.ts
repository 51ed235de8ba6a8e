import { type Document, isMap, isScalar, isSeq, type Scalar, type YAMLMap } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import { apiGroup, apiVersionOf, getAnnotation, kindOf, nameOf, setAnnotation } from "../../kpt/resource.js";
import { atLeast, newestRelease } from "../releases.js";
import type { BuiltinFunction } from "../types.js";
import { childMap, childMaps, scalarEntry } from "./util/catalog-fields.js";
import {
  configMapData,
  type Gvk,
  gvkMatches,
  gvkOf,
  isConfigMap,
  isGVK,
  matchesGVK,
  splitApiVersion,
  stringEntries,
} from "./util/catalog-fnconfig.js";
import { catalogFunction, eachResource, refuseAsFailure } from "./util/catalog-function.js";
import { NAME_REFERENCES, type NameRefTarget } from "./util/catalog-namerefs.js";
import { declaredNamespace } from "./util/catalog-origin.js";
import { knownNamespaceScope } from "./util/catalog-scope.js";

/**
 * ensure-name-substring, as gcr.io/kpt-fn/ensure-name-substring:v0.1.0 to v0.2.0 do it: prepends (or
 * appends) the substring to `metadata.name` (and to `additionalNameFields`) of every resource whose name
 * does not already contain it, except CustomResourceDefinitions, APIServices and Namespaces; then fixes
 * the fields that refer to a renamed resource by name (kustomize's name references: config maps and
 * secrets in pod specs, service accounts, role refs, services of ingresses, ...).
 *
 * The releases differ:
 * - v0.1.0: extra fields are `fieldSpecs`; an empty substring fails "failed validation: ...", a bad
 *   config fails with the parser's message alone; resources annotated local-config leave the output.
 * - v0.1.1: `additionalNameFields` (with `fieldSpecs` still read, but not both); every config error is
 *   "failed to load the `functionConfig`: ...".
 * - v0.2.0: the Kptfile keeps its name, and a renamed resource's own `config.kubernetes.io/depends-on`
 *   gets the substring in the name it points at, when a resource of that group, kind and name is in the
 *   input.
 * A failure is a bare error (the kyaml framework's exit 1 and stderr), with no result.
 */

const NEWEST = newestRelease("ensure-name-substring");

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "EnsureNameSubstring";

interface NameFieldSpec {
  group: string;
  version: string;
  kind: string;
  path: string[];
}

interface EnsureNameSubstringConfig {
  substring: string;
  editMode: string;
  fields: NameFieldSpec[];
}

const METADATA_NAME: NameFieldSpec = { group: "", version: "", kind: "", path: ["metadata", "name"] };

function gvkString(apiVersion: string, kind: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return `${group}/${version}, Kind=${kind}`;
}

function readFieldSpecs(node: unknown): NameFieldSpec[] {
  if (!isSeq(node)) return [];
  return node.items.filter(isMap).map((item) => {
    const e = stringEntries(item);
    return {
      group: e.get("group") ?? "",
      version: e.get("version") ?? "",
      kind: e.get("kind") ?? "",
      path: (e.get("path") ?? "").split("/"),
    };
  });
}

/** The config, or the message kpt shows for a bad one. */
function readEnsureNameSubstringConfig(
  config: Document | undefined,
  release: string = NEWEST,
): EnsureNameSubstringConfig | string {
  // ensure-name-substring/v0.1.1 loads (and validates) the config through LoadFunctionConfig, whose error
  // it prefixes; v0.1.0's framework returned the parser's error as it was.
  const modern = atLeast(release, "v0.1.1");
  const load = (m: string) => (modern ? `failed to load the \`functionConfig\`: ${m}` : m);
  let cfg: EnsureNameSubstringConfig;
  if (config && isConfigMap(config)) {
    const data = configMapData(config);
    if (data.size !== 1) return load(`only 1 entry is allowed in the ConfigMap, but got: ${data.size}`);
    //  the map has one entry: checked above
    const [mode, substring] = [...data.entries()][0]!;
    if (mode !== "prepend" && mode !== "append") {
      return load(`unknown editMode: ${mode}, only prepend and append are allowed`);
    }
    cfg = { substring, editMode: mode, fields: [] };
  } else if (config && isGVK(config, CONFIG_API_VERSION, CONFIG_KIND)) {
    const e = stringEntries(config.contents);
    const additional = modern ? config.get("additionalNameFields", true) : undefined;
    const legacy = config.get("fieldSpecs", true);
    if (additional != null && legacy != null) {
      return load("`fieldSpecs` has been deprecated, please rename it to `additionalNameFields`");
    }
    cfg = {
      substring: e.get("substring") ?? "",
      editMode: e.get("editMode") || "prepend",
      fields: readFieldSpecs(additional ?? legacy),
    };
  } else {
    const got = config ? gvkString(apiVersionOf(config), kindOf(config)) : gvkString("", "");
    return load(
      `function config must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=EnsureNameSubstring, but we got: ${got}`,
    );
  }
  if (cfg.substring === "") {
    return modern ? load("substring must not be empty") : "failed validation: substring must not be empty";
  }
  return { ...cfg, fields: [METADATA_NAME, ...cfg.fields] };
}

function skipped(doc: Document, release: string): boolean {
  const kind = kindOf(doc);
  if (kind === "CustomResourceDefinition" || kind === "Namespace") return true;
  if (kind === "APIService" && matchesGVK(doc, "apiregistration.k8s.io", "", "APIService")) return true;
  // ensure-name-substring/v0.2.0 added the Kptfile to the kinds it leaves alone.
  return atLeast(release, "v0.2.0") && kind === "Kptfile" && apiVersionOf(doc).startsWith("kpt.dev/");
}

function edit(value: string, substring: string, mode: string): string {
  if (mode === "prepend") return substring + value;
  if (mode === "append") return value + substring;
  return value;
}

/** A resource whose `metadata.name` changed. */
interface Rename {
  gvk: Gvk;
  group: string;
  kind: string;
  namespace: string;
  from: string;
  to: string;
  namespaced: boolean;
}

function sameNamespace(a: string, b: string): boolean {
  return (a || "default") === (b || "default");
}

function isNamespaced(doc: Document): boolean {
  return knownNamespaceScope(apiVersionOf(doc), kindOf(doc)) ?? true;
}

/** The scalars at the end of `path` below `map`, walking sequences met on the way element by element. */
function visitScalars(
  map: YAMLMap,
  path: readonly string[],
  at: number,
  visit: (scalar: Scalar) => void,
): void {
  //  at < path.length: the callers walk the path's keys one by one
  const node: unknown = map.get(path[at]!, true);
  if (at === path.length - 1) {
    if (isScalar(node)) visit(node);
    else if (isSeq(node)) for (const item of node.items) if (isScalar(item)) visit(item);
    return;
  }
  if (isMap(node)) visitScalars(node, path, at + 1, visit);
  else if (isSeq(node))
    for (const item of node.items) if (isMap(item)) visitScalars(item, path, at + 1, visit);
}

class ReferenceFixer {
  private readonly byName = new Map<string, Rename[]>();

  constructor(renames: readonly Rename[]) {
    for (const r of renames) {
      const list = this.byName.get(r.from);
      if (list) list.push(r);
      else this.byName.set(r.from, [r]);
    }
  }

  /** The new name for a reference to `name` from `referrer`, when exactly one renamed target fits. */
  resolve(target: NameRefTarget, name: string, referrer: Document, namespace?: string): string | undefined {
    const referrerNamespaced = isNamespaced(referrer);
    const ns = namespace ?? declaredNamespace(referrer) ?? "";
    const found = new Set<string>();
    for (const r of this.byName.get(name) ?? []) {
      if (!gvkMatches(r.gvk, target.group, target.version, target.kind)) continue;
      if (referrerNamespaced && r.namespaced && !sameNamespace(r.namespace, ns)) continue;
      found.add(r.to);
    }
    return found.size === 1 ? [...found][0] : undefined;
  }

  fix(doc: Document, root: YAMLMap): void {
    const gvk = gvkOf(doc);
    for (const rule of NAME_REFERENCES) {
      for (const field of rule.referrers) {
        if (!gvkMatches(gvk, field.group, "", field.kind)) continue;
        visitScalars(root, field.path, 0, (node) => {
          if (typeof node.value !== "string") return;
          const renamed = this.resolve(rule.target, node.value, doc);
          if (renamed !== undefined) node.value = renamed;
        });
      }
    }
    const kind = kindOf(doc);
    if (kind === "RoleBinding" || kind === "ClusterRoleBinding") this.fixBinding(doc, root);
  }

  private fixBinding(doc: Document, root: YAMLMap): void {
    const roleRef = childMap(root, "roleRef");
    const refKind = roleRef ? scalarEntry(roleRef, "kind") : undefined;
    const refName = roleRef ? scalarEntry(roleRef, "name") : undefined;
    if (roleRef && refName && (refKind === "Role" || refKind === "ClusterRole")) {
      const renamed = this.resolve(
        { group: "rbac.authorization.k8s.io", version: "", kind: refKind },
        refName,
        doc,
      );
      const node = roleRef.get("name", true);
      if (renamed !== undefined && isScalar(node)) node.value = renamed;
    }
    for (const subject of childMaps(root, "subjects")) {
      const name = scalarEntry(subject, "name");
      if (scalarEntry(subject, "kind") !== "ServiceAccount" || !name) continue;
      const ns = scalarEntry(subject, "namespace") ?? declaredNamespace(doc) ?? "";
      const renamed = this.resolve({ group: "", version: "v1", kind: "ServiceAccount" }, name, doc, ns);
      const node = subject.get("name", true);
      if (renamed !== undefined && isScalar(node)) node.value = renamed;
    }
  }
}

// `<group>/namespaces/<namespace>/<kind>/<name>` and `<group>/<kind>/<name>`, as v0.2.0 reads them.
const NAMESPACED_DEPENDENCY = /^[-.\w]*\/namespaces\/[-.\w]*\/[-.\w]*\/[-.\w]*$/;
const CLUSTER_DEPENDENCY = /^[-.\w]*\/[-.\w]*\/[-.\w]*$/;

/** The input's resources by group, kind and name, before any rename. */
function inputLookup(items: readonly Document[]): Set<string> {
  const keys = new Set<string>();
  for (const doc of items) keys.add(`${apiGroup(apiVersionOf(doc))}/${kindOf(doc)}/${nameOf(doc)}`);
  return keys;
}

/**
 * ensure-name-substring/v0.2.0: the renamed resource's own depends-on annotation, when it is one whole
 * reference to a resource of the input, gets the substring in the name it points at (whether or not that
 * resource was renamed, and once more for each field set).
 */
function editDependsOn(doc: Document, cfg: EnsureNameSubstringConfig, input: ReadonlySet<string>): void {
  const value = getAnnotation(doc, ANNOTATION.dependsOn);
  if (value === undefined) return;
  const s = value.split("/");
  let at: [number, number, number];
  if (NAMESPACED_DEPENDENCY.test(value)) at = [0, 3, 4];
  else if (CLUSTER_DEPENDENCY.test(value)) at = [0, 1, 2];
  else return;
  const [group, kind, name] = at.map((i) => s[i] ?? "");
  if (!input.has(`${group}/${kind}/${name}`)) return;
  s[at[2]] = edit(name ?? "", cfg.substring, cfg.editMode);
  setAnnotation(doc, ANNOTATION.dependsOn, s.join("/"));
}

function renameResource(
  doc: Document,
  root: YAMLMap,
  cfg: EnsureNameSubstringConfig,
  renames: Rename[],
  input: ReadonlySet<string> | undefined,
): void {
  const gvk = gvkOf(doc);
  for (const fs of cfg.fields) {
    if (!gvkMatches(gvk, fs.group, fs.version, fs.kind)) continue;
    const isName = fs.path.length === 2 && fs.path[0] === "metadata" && fs.path[1] === "name";
    if (isName && nameOf(doc).includes(cfg.substring)) continue;
    visitScalars(root, fs.path, 0, (node) => {
      const current = node.value === null || node.value === undefined ? "" : String(node.value);
      if (current.includes(cfg.substring)) return;
      const next = edit(current, cfg.substring, cfg.editMode);
      if (next === current) return;
      node.value = next;
      if (isName) {
        renames.push({
          gvk,
          group: apiGroup(apiVersionOf(doc)),
          kind: kindOf(doc),
          namespace: declaredNamespace(doc) ?? "",
          from: current,
          to: next,
          namespaced: isNamespaced(doc),
        });
      }
    });
    if (input) editDependsOn(doc, cfg, input);
  }
}

export const ensureNameSubstring: BuiltinFunction = catalogFunction({
  name: "ensure-name-substring",
  range: ["v0.1.0"],
  readConfig: readEnsureNameSubstringConfig,
  // The kyaml framework fails the run with the error on stderr and writes no result.
  refuse: refuseAsFailure,
  run(input, cfg, release, ctx) {
    // ensure-name-substring/v0.1.0's kustomize (api v0.8.4) drops every resource annotated
    // config.kubernetes.io/local-config, whatever its value, from the output; v0.1.1 keeps them.
    if (!atLeast(release, "v0.1.1")) {
      input.items = input.items.filter((doc) => getAnnotation(doc, ANNOTATION.localConfig) === undefined);
    }
    const lookup = atLeast(release, "v0.2.0") ? inputLookup(input.items) : undefined;
    const renames: Rename[] = [];
    eachResource(input.items, ctx, (doc, root) => {
      if (!skipped(doc, release) && nameOf(doc) !== "") renameResource(doc, root, cfg, renames, lookup);
    });
    if (renames.length === 0) return input;
    const fixer = new ReferenceFixer(renames);
    eachResource(input.items, ctx, (doc, root) => fixer.fix(doc, root));
    return input;
  },
});
