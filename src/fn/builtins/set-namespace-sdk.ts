import { Document, isMap, isScalar, isSeq, type Node, Pair, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { goQuoteString } from "../../api/go-quote.js";
import { ANNOTATION } from "../../kpt/annotations.js";
import {
  annotationIn,
  apiGroup,
  apiVersionOf,
  getAnnotation,
  kindOf,
  nameOf,
  nodeIn,
  pairValue,
  type ResourceHead,
  resourceHead,
} from "../../kpt/resource.js";
import { copyComments } from "../../kpt/yaml/comments.js";
import { newScalar, readPair } from "../../kpt/yaml/yaml-nodes.js";
import { atLeast } from "../releases.js";
import { FunctionExitError } from "../runtime/errors.js";
import {
  type BuiltinFunction,
  type FieldPattern,
  type FunctionResult,
  type ItemSplit,
  type Rerun,
  type ResourceList,
  UNSETTLED,
} from "../types.js";
import { configMapData, isConfigMap, isEmptyConfig, isGVK, topString } from "./util/catalog-fnconfig.js";
import { catalogFunction } from "./util/catalog-function.js";
import { configErrorResult, errorResult, infoResult } from "./util/catalog-results.js";
import { knownNamespaceScope } from "./util/catalog-scope.js";
import { jsonRoundTripNode } from "./util/go-json-roundtrip.js";
import { annotationField, GVK_FIELDS } from "./util/rerun-fields.js";

/**
 * set-namespace v0.3.0–v0.4.1, the releases on the kpt functions SDK. Namespace fields are
 * `metadata.namespace`, a Namespace's name, a CRD's conversion webhook service, an APIService's service
 * and (Cluster)RoleBinding subjects; a `config.kubernetes.io/depends-on` annotation pointing at a
 * resource of the package follows its namespace. Local-config resources are left alone.
 *
 * - v0.3: the namespace to replace is the name of the one Namespace object, or `namespaceMatcher`, or
 *   else the one namespace all resources with `metadata.namespace` share. Problems, a bad config too,
 *   are an error result, yet the function succeeds (kpt goes on).
 * - v0.4 (set-namespace/v0.4.0): every namespace field that is not the new namespace gets it, an unset
 *   `metadata.namespace` of a namespace-scoped kind too (kinds the SDK does not know count as
 *   namespace-scoped when they have the field); two resources with the same id are an error result.
 *
 * The function writes every field it visits back with the SDK's setter, whether or not the value
 * changed: the field is a new node (its quoting reset), a CRD or APIService without the field gets it,
 * and a binding's `subjects` is rewritten through JSON (or added, empty).
 *
 * Release switches, each with the catalog tag that introduced it:
 * - set-namespace/v0.3.2: RoleBinding subjects too, and `metadata.namespace` of every kind (the special
 *   kinds included).
 * - set-namespace/v0.3.3: the result says what changed (`namespace "a" updated to "b", N values
 *   changed`); no namespace at all is an error result (v0.3.0–v0.3.2 fail on an index out of range);
 *   Go-quoted values in the errors; v0.3.3 alone adds a stray "set image from …" result.
 * - set-namespace/v0.4.0: replace every other value (above).
 * - set-namespace/v0.4.1: a bad or missing config fails the function (exit 1), its result without the
 *   config's reference.
 */

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "SetNamespace";
const PACKAGE_CONTEXT_NAME = "kptfile.kpt.dev";
const NAMESPACED_DEPENDS_ON = /^([-.\w]*)\/namespaces\/([-.\w]*)\/([-.\w]*)\/([-.\w]*)$/;
const CRD_SERVICE_NAMESPACE = ["spec", "conversion", "webhook", "clientConfig", "service", "namespace"];
const API_SERVICE_NAMESPACE = ["spec", "service", "namespace"];

interface Config {
  newNamespace: string;
  matcher: string;
}

function readSetNamespaceSdkConfig(config: Document | undefined, release: string): Config | string {
  const v04 = atLeast(release, "v0.4.0");
  if (atLeast(release, "v0.4.1") && isEmptyConfig(config)) {
    return "FunctionConfig is missing. Expect `ConfigMap` or `SetNamespace`";
  }
  if (config && isConfigMap(config)) {
    const data = configMapData(config);
    let newNamespace = data.get("namespace") ?? "";
    if (newNamespace === "") {
      if (nameOf(config) !== PACKAGE_CONTEXT_NAME) return "`data.namespace` should not be empty";
      newNamespace = data.get("name") ?? "";
      if (newNamespace === "") return "`data.name` should not be empty";
    }
    return { newNamespace, matcher: v04 ? "" : (data.get("namespaceMatcher") ?? "") };
  }
  if (config && isGVK(config, CONFIG_API_VERSION, CONFIG_KIND)) {
    const newNamespace = topString(config, "namespace");
    if (newNamespace === "") return "`namespace` should not be empty";
    // The release reads the matcher from `data`, even in a SetNamespace.
    const data = config.get("data", true);
    const matcher = isMap(data) && !v04 ? scalarText(data.get("namespaceMatcher", true)) : "";
    return { newNamespace, matcher };
  }
  const kind = config ? kindOf(config) : "";
  const apiVersion = config ? apiVersionOf(config) : "";
  return `unknown functionConfig Kind=${kind} ApiVersion=${apiVersion}, expect \`${CONFIG_KIND}\` or \`ConfigMap\``;
}

function scalarText(node: unknown): string {
  return isScalar(node) && node.value !== null && node.value !== undefined ? String(node.value) : "";
}

/** One namespace field met in a pass over the resources; the visitor may change `value`. */
interface NamespaceField {
  doc: Document;
  value: string;
  isNamespaceObject: boolean;
}

type Visitor = (field: NamespaceField) => void;

/** `key` of `map` (its pair, if it has one) set to a new string node, the old node's comments kept. */
function setStringPair(map: YAMLMap, pair: Pair | undefined, key: string, value: string): void {
  const node = newScalar(value);
  if (pair) {
    const old = pair.value as Node | null;
    if (old && typeof old === "object") copyComments(old, node);
    pair.value = node;
  } else {
    map.items.push(readPair(newScalar(key), node));
  }
}

/** The SDK's SetNestedString: a new string node at `path` (comments kept), missing maps created. */
function setStringAt(map: YAMLMap, path: readonly string[], value: string, from = 0): void {
  const head = path[from];
  if (head === undefined) return;
  const pair = pairOf(map, head);
  if (from === path.length - 1) {
    setStringPair(map, pair, head, value);
    return;
  }
  if (pair && isMap(pair.value)) {
    setStringAt(pair.value, path, value, from + 1);
    return;
  }
  const created = new YAMLMap();
  if (pair) pair.value = created;
  else map.items.push(new Pair(new Scalar(head), created));
  setStringAt(created, path, value, from + 1);
}

/** The first pair whose scalar key reads as `key`. */
function pairOf(map: YAMLMap, key: string): Pair | undefined {
  const pairs = map.items as Pair[];
  for (let i = 0; i < pairs.length; i++) {
    const k = pairs[i]!.key; // i < pairs.length
    if (isScalar(k) && String(k.value) === key) return pairs[i];
  }
  return undefined;
}

function stringAt(doc: Document, path: readonly string[]): string {
  return scalarText(nodeIn(doc, path));
}

const NAMESPACE_PATH = ["metadata", "namespace"] as const;
const NAME_PATH = ["metadata", "name"] as const;

function hasNamespace(doc: Document): boolean {
  const node = nodeIn(doc, NAMESPACE_PATH);
  return isScalar(node) && typeof node.value === "string";
}

/** hasNamespace of a resource whose metadata mapping is known (absent: no namespace). */
function hasNamespaceIn(metadata: YAMLMap | undefined): boolean {
  const node = metadata ? pairValue(metadata.items, "namespace") : undefined;
  return isScalar(node) && typeof node.value === "string";
}

/** The SDK's IsLocalConfig: the annotation set to anything but "" or "false". */
function isLocalConfig(annotations: YAMLMap | undefined): boolean {
  const v = annotationIn(annotations, ANNOTATION.localConfig) ?? "";
  return v !== "" && v !== "false";
}

class Pass {
  /** A resource the pass went over (local config too) has a namespaced depends-on annotation. */
  sawNamespacedDependsOn = false;
  private readonly modern: boolean;
  private readonly v04: boolean;

  constructor(
    release: string,
    private readonly visitor: Visitor,
  ) {
    this.modern = atLeast(release, "v0.3.2");
    this.v04 = atLeast(release, "v0.4.0");
  }

  /** Visits the string at `path` and writes what the visitor left back (the SDK's SetOrDie). */
  private field(doc: Document, path: readonly string[], isNamespaceObject: boolean): void {
    const f: NamespaceField = {
      doc,
      value: stringAt(doc, path),
      isNamespaceObject,
    };
    this.visitor(f);
    setStringAt(doc.contents as YAMLMap, path, f.value);
  }

  /**
   * field() of `metadata.namespace`, the metadata mapping known (the field every resource has): its pair
   * found once for the value read and the value written, the field given to the visitor one object the
   * pass reuses (no visitor keeps it).
   */
  private namespaceField(doc: Document, metadata: YAMLMap, isNamespaceObject: boolean): void {
    const f = this.scratch;
    const pair = pairOf(metadata, "namespace");
    f.doc = doc;
    f.value = scalarText(pair?.value);
    f.isNamespaceObject = isNamespaceObject;
    this.visitor(f);
    // setStringAt of the one-key path, with the pair already found.
    setStringPair(metadata, pair, "namespace", f.value);
  }

  private readonly scratch: NamespaceField = {
    // Replaced by each resource's document before the visitor sees it.
    doc: new Document(),
    value: "",
    isNamespaceObject: false,
  };

  /**
   * The head of the last resource runOne went over (read before the pass), where the pass changed
   * nothing of it but `metadata.namespace` in that head's metadata; undefined where it went another way
   * (not a mapping, local config, a special kind, no metadata mapping): read the resource again there.
   */
  lastHead: ResourceHead | undefined;

  private subjects(doc: Document, isNamespaceObject: boolean): void {
    const root = doc.contents as YAMLMap;
    const pair = (root.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === "subjects");
    if (!pair || !isSeq(pair.value)) {
      const empty = new YAMLSeq();
      empty.flow = true;
      if (pair) pair.value = empty;
      else root.items.push(new Pair(new Scalar("subjects"), empty));
      return;
    }
    for (const subject of pair.value.items) {
      if (!isMap(subject) || !subject.has("namespace")) continue;
      const f: NamespaceField = {
        doc,
        value: scalarText(subject.get("namespace", true)),
        isNamespaceObject,
      };
      this.visitor(f);
      setStringAt(subject, ["namespace"], f.value);
    }
    // The subjects go back through JSON (SliceSubObjects.MarshalJSON), comments of the list kept.
    const old = pair.value;
    const out = jsonRoundTripNode(old, doc, "kyaml");
    copyComments(old, out);
    pair.value = out;
  }

  run(items: readonly Document[]): void {
    for (let i = 0; i < items.length; i++) this.runOne(items[i]!); // i < items.length
  }

  /** The pass over one resource; lastHead is its head where only its `metadata.namespace` may have changed. */
  runOne(doc: Document): void {
    const { modern, v04 } = this;
    this.lastHead = undefined;
    if (!isMap(doc.contents)) return;
    const head = resourceHead(doc);
    if (!this.sawNamespacedDependsOn && hasNamespacedDependsOn(head.annotations)) {
      this.sawNamespacedDependsOn = true;
    }
    if (isLocalConfig(head.annotations)) return;
    const { apiVersion, kind } = head;
    const isNamespaceObject = apiVersion === "v1" && kind === "Namespace";
    let special = true;
    if (isNamespaceObject) this.field(doc, NAME_PATH, true);
    else if (apiVersion === "apiextensions.k8s.io/v1" && kind === "CustomResourceDefinition")
      this.field(doc, CRD_SERVICE_NAMESPACE, false);
    else if (apiVersion === "apiregistration.k8s.io/v1" && kind === "APIService")
      this.field(doc, API_SERVICE_NAMESPACE, false);
    else if (kind === "ClusterRoleBinding" || (modern && kind === "RoleBinding")) this.subjects(doc, false);
    else special = false;
    // A special kind's field may have replaced its metadata: read again there.
    const namespaced = v04
      ? (knownNamespaceScope(apiVersion, kind) ??
        (special ? hasNamespace(doc) : hasNamespaceIn(head.metadata)))
      : (modern || !special) && (special ? hasNamespace(doc) : hasNamespaceIn(head.metadata));
    if (!special) this.lastHead = head;
    if (!namespaced) return;
    if (!special && head.metadata) this.namespaceField(doc, head.metadata, isNamespaceObject);
    else {
      this.lastHead = undefined;
      this.field(doc, NAMESPACE_PATH, isNamespaceObject);
    }
  }
}

function hasNamespacedDependsOn(annotations: YAMLMap | undefined): boolean {
  const dependsOn = annotationIn(annotations, ANNOTATION.dependsOn);
  return dependsOn !== undefined && NAMESPACED_DEPENDS_ON.test(dependsOn);
}

function dependsOnKey(doc: Document): string {
  return `${apiGroup(apiVersionOf(doc))}/${kindOf(doc)}/${nameOf(doc)}`;
}

/** Go's `%v` of a map[string]int: `map[a:1 b:2]`, keys sorted. */
function goIntMap(m: ReadonlyMap<string, number>): string {
  const keys = [...m.keys()].sort();
  return `map[${keys.map((k) => `${k}:${m.get(k)}`).join(" ")}]`;
}

interface Outcome {
  errors: string[];
  matcher: string;
  count: number;
}

function transform(items: readonly Document[], cfg: Config, release: string): Outcome {
  const v033 = atLeast(release, "v0.3.3");
  const quote = (s: string): string => (v033 ? goQuoteString(s) : s);
  const out: Outcome = { errors: [], matcher: cfg.matcher, count: 0 };
  const counter = new Map<string, number>();
  const found = new Set<string>();
  new Pass(release, (f) => {
    if (f.value === "") return;
    if (f.isNamespaceObject) counter.set(f.value, (counter.get(f.value) ?? 0) + 1);
    found.add(f.value);
  }).run(items);
  const fromResources = [...found].sort();

  let oldNs: string | undefined;
  if (cfg.matcher !== "") {
    if (counter.size === 0) oldNs = cfg.matcher;
    else
      out.errors.push(
        "found Namespace objects from the input resources, you cannot use `namespaceMatcher` in FunctionConfig together with Namespace objects",
      );
  } else if (counter.size > 1) {
    out.errors.push(
      `cannot accept more than one Namespace objects from the input resources, found ${goIntMap(counter)}`,
    );
  } else if (counter.size === 1) {
    //  the counter has one entry: checked above
    const [name, n] = [...counter.entries()][0]!;
    if (n > 1) out.errors.push(`found more than one Namespace objects of the same name ${quote(name)}`);
    else oldNs = name;
  } else if (fromResources.length > 1) {
    out.errors.push(
      `all input namespace-scoped resources should be under the same namespace but found different namespaces: ${quote(fromResources.join(","))} `,
    );
  } else if (fromResources.length === 0) {
    if (!v033) {
      const message = "panic with runtime error: index out of range [0] with length 0";
      throw new FunctionExitError(message, 1, "", [errorResult(message)]);
    }
    out.errors.push(
      "could not find any namespace fields to update. This function requires at least one of Namespace objects or namespace-scoped resources to have their namespace field set.",
    );
  } else {
    oldNs = fromResources[0];
  }
  if (oldNs === undefined) return out;
  if (v033) out.matcher = oldNs;

  const from = oldNs;
  if (!(v033 && from === cfg.newNamespace)) {
    new Pass(release, (f) => {
      if (f.value !== "" && f.value === from) {
        f.value = cfg.newNamespace;
        out.count += 1;
      }
    }).run(items);
  }
  rewriteDependsOn(items, release, cfg.newNamespace, (ns) => ns === from);
  return out;
}

/**
 * The depends-on pass both SDK eras run after the namespace pass: a namespaced `depends-on` reference to a
 * resource of the package, whose namespace was an old one, gets the new namespace.
 */
function rewriteDependsOn(
  items: readonly Document[],
  release: string,
  newNamespace: string,
  wasOld: (namespace: string) => boolean,
): void {
  const targets = new Set<string>();
  new Pass(release, (f) => {
    targets.add(dependsOnKey(f.doc));
  }).run(items);
  new Pass(release, (f) => {
    const dependsOn = getAnnotation(f.doc, ANNOTATION.dependsOn) ?? "";
    if (dependsOn === "" || !NAMESPACED_DEPENDS_ON.test(dependsOn)) return;
    const segments = dependsOn.split("/");
    if (!targets.has(`${segments[0]}/${segments[3]}/${segments[4]}`) || !wasOld(segments[2] ?? "")) return;
    segments[2] = newNamespace;
    setStringAt(
      f.doc.contents as YAMLMap,
      ["metadata", "annotations", ANNOTATION.dependsOn],
      segments.join("/"),
    );
  }).run(items);
}

/** A resource's share of a v0.4 run: its id after the pass, the fields it changed and their old values. */
interface V04Share {
  id: string;
  count: number;
  old: string[];
  /** It has a namespaced depends-on annotation (the whole list's are rewritten then). */
  dependsOn: boolean;
  /** A binding: its subjects go through JSON (V04_RERUN: it writes all of them). */
  subjects?: true;
}

/**
 * v0.4 by item: every namespace field that is not the new namespace gets it. The run reports how many
 * values changed and what they were, unless two resources share an id or one has a namespaced
 * depends-on annotation: the whole list decides then.
 */
function splitV04(newNamespace: string, release: string): ItemSplit {
  let count = 0;
  const old = new Set<string>();
  const pass = new Pass(release, (f) => {
    if (f.value === newNamespace) return;
    old.add(f.value);
    f.value = newNamespace;
    count += 1;
  });
  return {
    item(doc): V04Share {
      count = 0;
      old.clear();
      pass.sawNamespacedDependsOn = false;
      pass.runOne(doc);
      // The id after the pass: from the head the pass read, its namespace read again from the same
      // metadata, where that is all the pass may have changed (a special kind's fields may change its
      // name or metadata: the whole head is read again there).
      const head = pass.lastHead;
      const id = head
        ? sdkIdOf(
            head.apiVersion,
            head.kind,
            head.metadata ? scalarText(pairValue(head.metadata.items, "namespace")) : head.namespace,
            head.name,
          )
        : sdkId(doc);
      const share: V04Share = {
        id,
        count,
        old: old.size === 0 ? NO_OLD : [...old],
        dependsOn: pass.sawNamespacedDependsOn,
      };
      const kind = head?.kind ?? kindOf(doc);
      if (kind === "ClusterRoleBinding" || kind === "RoleBinding") share.subjects = true;
      return share;
    },
    combine(shares) {
      const total = sumV04(shares as readonly V04Share[]);
      if (total.dependsOn) return undefined;
      const ids = new Set<string>();
      for (const share of shares as readonly V04Share[]) {
        if (ids.has(share.id)) return undefined;
        ids.add(share.id);
      }
      return [resultV04(total.count, total.old, newNamespace)];
    },
    rerun: V04_RERUN,
  };
}

/**
 * v0.4 over its own output: every namespace field it sets already holds the new namespace, so it
 * changes none and counts none (the subjects of a binding go through JSON again, as they came out).
 * A resource with a namespaced depends-on annotation is the whole list's (combine): nothing promised.
 */
const V04_RERUN: Rerun = {
  again(share) {
    const s = share as V04Share;
    if (s.dependsOn) return UNSETTLED;
    return { ...s, count: 0, old: NO_OLD };
  },
  reads: (share) => ((share as V04Share).subjects ? V04_BINDING_READS : V04_READS),
  writes: (share) => ((share as V04Share).subjects ? V04_BINDING_WRITES : V04_WRITES),
  creates: () => [["metadata"]],
};

const V04_WRITES: readonly FieldPattern[] = [
  [...NAMESPACE_PATH],
  [...NAME_PATH],
  CRD_SERVICE_NAMESPACE,
  API_SERVICE_NAMESPACE,
];

/** A binding's: its subjects too, all of them (they go through JSON), and the list where it adds one. */
const V04_BINDING_WRITES: readonly FieldPattern[] = [
  ...V04_WRITES,
  ["subjects"],
  ["subjects", "*"],
  ["subjects", "*", "**"],
];

/** The id (apiVersion, kind, name, namespace), local config, depends-on, and the fields it sets. */
const V04_READS: readonly FieldPattern[] = [
  ...GVK_FIELDS,
  annotationField(ANNOTATION.localConfig),
  annotationField(ANNOTATION.dependsOn),
  ...V04_WRITES,
];

const V04_BINDING_READS: readonly FieldPattern[] = [...V04_READS, ...V04_BINDING_WRITES];

function sumV04(shares: readonly V04Share[]): { count: number; old: Set<string>; dependsOn: boolean } {
  const total = { count: 0, old: new Set<string>(), dependsOn: false };
  for (let i = 0; i < shares.length; i++) {
    const share = shares[i]!; // i < shares.length
    total.count += share.count;
    // An index loop: for…of makes an iterator per share (most have no old value) where not optimised.
    const old = share.old;
    for (let j = 0; j < old.length; j++) total.old.add(old[j]!); // j < old.length
    if (share.dependsOn) total.dependsOn = true;
  }
  return total;
}

function resultV04(count: number, old: ReadonlySet<string>, newNamespace: string): FunctionResult {
  if (count === 0)
    return infoResult(`all namespaces are already ${goQuoteString(newNamespace)}. no value changed`);
  // The release joins the old values in Go's map order (random); porchlight sorts them.
  const olds = [...old].sort().map((o) => `"${o}"`);
  return infoResult(
    `namespace ${olds.join(",")} updated to ${goQuoteString(newNamespace)}, ${count} value(s) changed`,
  );
}

/** The SDK's resource id (apiVersion, kind, namespace and name), as one string. */
function sdkId(doc: Document): string {
  const { apiVersion, kind, namespace, name } = resourceHead(doc);
  return sdkIdOf(apiVersion, kind, namespace, name);
}

function sdkIdOf(apiVersion: string, kind: string, ns: string, name: string): string {
  // Each part's length first: no two ids make one key.
  return `${apiVersion.length}:${apiVersion}${kind.length}:${kind}${ns.length}:${ns}${name}`;
}

/** The old values of a resource that changed none (most: one array for them all, never changed). */
const NO_OLD: string[] = [];

/** The SDK's CheckResourceDuplication: two items with the same apiVersion, kind, namespace and name. */
function duplicate(items: readonly Document[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    //  i < items.length
    const id = sdkId(items[i]!);
    if (seen.has(id)) {
      //  i < items.length
      const { apiVersion, kind, namespace: ns, name } = resourceHead(items[i]!);
      return `duplicate Resource(apiVersion=${apiVersion}, kind=${kind}, Namespace=${ns}, Name=${name})`;
    }
    seen.add(id);
  }
  return undefined;
}

function runV04(input: ResourceList, cfg: Config, release: string): FunctionResult {
  const split = splitV04(cfg.newNamespace, release);
  const shares = input.items.map((doc) => split.item(doc) as V04Share);
  const whole = split.combine(shares);
  if (whole?.[0]) return whole[0];
  // The depends-on passes visit the fields the pass above just wrote and write them again unchanged:
  // where no resource has a namespaced depends-on annotation, they change nothing. (The pass writes
  // namespaces only: what it saw of the depends-on annotations is what they are.)
  const { count, old, dependsOn } = sumV04(shares);
  if (dependsOn) rewriteDependsOn(input.items, release, cfg.newNamespace, (ns) => old.has(ns));
  const dup = duplicate(input.items);
  if (dup !== undefined) return errorResult(dup);
  return resultV04(count, old, cfg.newNamespace);
}

function runV03(input: ResourceList, cfg: Config, release: string): FunctionResult[] {
  const out = transform(input.items, cfg, release);
  const results: FunctionResult[] = [];
  if (out.errors.length > 0) results.push(errorResult(out.errors.join("\n")));
  else if (atLeast(release, "v0.3.3"))
    results.push(
      infoResult(
        `namespace ${goQuoteString(out.matcher)} updated to ${goQuoteString(cfg.newNamespace)}, ${out.count} values changed`,
      ),
    );
  else results.push(infoResult("namespace updated"));
  if (release === "v0.3.3") {
    results.push({
      message: `set image from ${out.matcher} to ${cfg.newNamespace}`,
      severity: "info",
      field: { path: "", currentValue: out.matcher, proposedValue: cfg.newNamespace },
      file: { path: "test" },
    });
  }
  return results;
}

export const setNamespaceSdk: BuiltinFunction = catalogFunction({
  name: "set-namespace",
  range: ["v0.3.0", "v0.4.1"],
  readConfig: readSetNamespaceSdkConfig,
  refuse(message, input, release) {
    // These releases report their problems as results and still exit 0 (v0.4.1 fails on a bad config).
    input.exitCode = 0;
    if (atLeast(release, "v0.4.1")) {
      throw new FunctionExitError(message, 1, "failed to evaluate function: error: function failure", [
        errorResult(message),
      ]);
    }
    input.results.push(configErrorResult(message, input.functionConfig));
    return input;
  },
  run(input, cfg, release) {
    input.exitCode = 0;
    if (atLeast(release, "v0.4.0")) input.results.push(runV04(input, cfg, release));
    else input.results.push(...runV03(input, cfg, release));
    return input;
  },
  split: (cfg, release) => (atLeast(release, "v0.4.0") ? splitV04(cfg.newNamespace, release) : undefined),
  // It writes namespace fields and depends-on annotations only, as new unstyled string scalars (and
  // RoleBinding subjects as the JSON trip styles them: plain, quoted or literal, never folded).
  untouched: () => ({ folded: true, fileAnnotations: true }),
});
