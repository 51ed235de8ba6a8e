import { type Document, isMap, isScalar, isSeq, type YAMLMap } from "yaml";
import { ANNOTATION } from "../../kpt/annotations.js";
import { annotationIn, apiVersionOf, kindOf, resourceHead } from "../../kpt/resource.js";
import { atLeast, newestRelease } from "../releases.js";
import {
  type BuiltinFunction,
  type DecidingSplit,
  type FieldPattern,
  type FunctionResult,
  type Rerun,
  UNSETTLED,
} from "../types.js";
import { childMap, entryNode, rootMap } from "./util/catalog-fields.js";
import {
  configMapData,
  gvkMatches,
  gvkOfParts,
  isConfigMap,
  isGVK,
  stringEntries,
} from "./util/catalog-fnconfig.js";
import { catalogFunction, itemShares, refuseAsFailure } from "./util/catalog-function.js";
import { errorResult, infoResult } from "./util/catalog-results.js";
import { compileGoRegexp, type GoRegexp } from "./util/go-regexp.js";
import { perKind } from "./util/per-kind.js";
import { FILE_FIELDS, ID_FIELDS } from "./util/rerun-fields.js";

/**
 * set-image, as gcr.io/kpt-fn/set-image:v0.1 does it (kustomize's image tag filter): every container
 * and init container image whose name matches `image.name` gets the new name, tag or digest, in pods and
 * pod templates (kustomize's default image field specs) and in any `additionalImageFields`.
 * CustomResourceDefinitions are never touched. Reports one result per image set, or "no images changed".
 */

const NEWEST = newestRelease("set-image");
const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "SetImage";

export interface ImageRule {
  name: string;
  newName: string;
  newTag: string;
  digest: string;
}

interface ImageFieldSpec {
  group: string;
  version: string;
  kind: string;
  path: string[];
  /** The field a change is reported at (fieldPathOf the path), made with the spec, not at each change. */
  field: string;
  /** Each segment's key (`name[]` without its `[]`) and whether it names a sequence's elements. */
  keys: string[];
  each: boolean[];
}

function imageFieldSpec(group: string, version: string, kind: string, path: string[]): ImageFieldSpec {
  const last = path.length - 1;
  // A sequence's elements at any segment but the last, as visitImages walks them.
  const each = path.map((segment, i) => i < last && segment.endsWith("[]"));
  const keys = path.map((segment, i) => (each[i] ? segment.slice(0, -2) : segment));
  return { group, version, kind, path, field: fieldPathOf(path), keys, each };
}

/** kustomize's built-in image field specs (of the kustomize the catalog's v0.1 builds with). */
const DEFAULT_IMAGE_FIELDS: readonly ImageFieldSpec[] = [
  "spec/containers[]/image",
  "spec/initContainers[]/image",
  "spec/template/spec/containers[]/image",
  "spec/template/spec/initContainers[]/image",
].map((p) => imageFieldSpec("", "", "", p.split("/")));

interface SetImageConfig {
  image: ImageRule;
  fields: ImageFieldSpec[];
}

function imageRule(values: ReadonlyMap<string, string>): ImageRule {
  return {
    name: values.get("name") ?? "",
    newName: values.get("newName") ?? "",
    newTag: values.get("newTag") ?? "",
    digest: values.get("digest") ?? "",
  };
}

function readAdditionalFields(node: unknown): ImageFieldSpec[] {
  if (!isSeq(node)) return [];
  return node.items.filter(isMap).map((item) => {
    const e = stringEntries(item);
    return imageFieldSpec(
      e.get("group") ?? "",
      e.get("version") ?? "",
      e.get("kind") ?? "",
      (e.get("path") ?? "").split("/"),
    );
  });
}

/** The config, or the catalog's error message. */
function readSetImageConfig(config: Document | undefined, release: string = NEWEST): SetImageConfig | string {
  let image: ImageRule;
  let fields: ImageFieldSpec[] = [];
  if (config && isConfigMap(config)) {
    // set-image/v0.1.0 requires `data`; v0.1.1 reads a missing one as empty.
    if (!atLeast(release, "v0.1.1") && config.get("data", true) === undefined) {
      return "unable to get field data from functionConfig";
    }
    image = imageRule(configMapData(config));
  } else if (config && isGVK(config, CONFIG_API_VERSION, CONFIG_KIND)) {
    image = imageRule(stringEntries(config.get("image", true)));
    fields = readAdditionalFields(config.get("additionalImageFields", true));
  } else {
    return `\`functionConfig\` must be a \`ConfigMap\` or \`${CONFIG_KIND}\``;
  }
  if (image.name === "") return "missing image name";
  if (image.newName === "" && image.newTag === "" && image.digest === "") {
    return "missing image newName, newTag, or digest";
  }
  if (image.newTag !== "" && image.digest !== "") return "image newTag and digest both set";
  return { image, fields: [...fields, ...DEFAULT_IMAGE_FIELDS] };
}

/** The expression isImageMatched tests with (undefined when the name makes none: nothing matches). */
function imageMatcher(name: string): GoRegexp | undefined {
  try {
    return compileGoRegexp(`^${name}(@sha256)?(:[a-zA-Z0-9_.{}-]*)?$`);
  } catch {
    return undefined;
  }
}

/** Splits an image into name and tag, the tag keeping its `:` or `@` (a registry port is not a tag). */
export function splitImage(image: string): { name: string; tag: string } {
  let colon = -1;
  const slash = image.indexOf("/");
  if (slash < 0) {
    colon = image.lastIndexOf(":");
  } else {
    const last = image.slice(slash).lastIndexOf(":");
    if (last > 0) colon = slash + last;
  }
  const at = image.lastIndexOf("@");
  if (colon < 0 && at < 0) return { name: image, tag: "" };
  const i = at > 0 ? at : colon;
  return { name: image.slice(0, i), tag: image.slice(i) };
}

/**
 * The image `value` becomes under the rule, or undefined when the rule does not match it. `matcher`:
 * the rule's imageMatcher, made once for a run over many images.
 */
export function applyImageRule(
  value: string,
  rule: ImageRule,
  matcher = imageMatcher(rule.name),
): string | undefined {
  if (!matcher?.test(value)) return undefined;
  let { name, tag } = splitImage(value);
  if (rule.newName !== "") name = rule.newName;
  if (rule.newTag !== "") tag = `:${rule.newTag}`;
  if (rule.digest !== "") tag = `@${rule.digest}`;
  return name + tag;
}

interface ImageChange {
  path: string;
  from: string;
  to: string;
}

/** Visits the scalar at the end of the spec's path below `map`, from its segment `at`. */
function visitImages(
  map: YAMLMap,
  spec: ImageFieldSpec,
  at: number,
  rule: ImageRule,
  matcher: GoRegexp | undefined,
  changes: ImageChange[],
): void {
  const key = spec.keys[at];
  if (key === undefined) return;
  if (at === spec.keys.length - 1) {
    const node = entryNode(map, key);
    if (!isScalar(node)) return;
    const from = node.value === null || node.value === undefined ? "" : String(node.value);
    const to = applyImageRule(from, rule, matcher);
    if (to === undefined) return;
    if (to !== from) node.value = to;
    changes.push({ path: spec.field, from, to });
    return;
  }
  if (spec.each[at]) {
    const seq = entryNode(map, key);
    if (!isSeq(seq)) return;
    // kyaml v0.13's FieldPath (set-image v0.1.0 and v0.1.1) names no element: `spec.containers.image`.
    for (let i = 0; i < seq.items.length; i++) {
      const item = seq.items[i];
      if (isMap(item)) visitImages(item, spec, at + 1, rule, matcher, changes);
    }
    return;
  }
  const next = childMap(map, key);
  if (next) visitImages(next, spec, at + 1, rule, matcher, changes);
}

/** The field a change is reported at: the path's keys joined by dots, a sequence's `[]` dropped on the way. */
function fieldPathOf(path: readonly string[]): string {
  let trail = "";
  path.forEach((segment, i) => {
    const key = i < path.length - 1 && segment.endsWith("[]") ? segment.slice(0, -2) : segment;
    trail = trail === "" ? key : `${trail}.${key}`;
  });
  return trail;
}

function changeResults(doc: Document, changes: readonly ImageChange[]): FunctionResult[] {
  // Read after the changes, as they are then (one walk for the id and the file annotations).
  const head = resourceHead(doc);
  const resourceRef: NonNullable<FunctionResult["resourceRef"]> = {
    apiVersion: head.apiVersion,
    kind: head.kind,
    name: head.name,
  };
  if (head.namespace) resourceRef.namespace = head.namespace;
  const annotations = head.annotations;
  const path =
    annotationIn(annotations, ANNOTATION.path) ?? annotationIn(annotations, ANNOTATION.internalPath);
  const index = Number(
    annotationIn(annotations, ANNOTATION.index) ?? annotationIn(annotations, ANNOTATION.internalIndex) ?? 0,
  );
  const file = Number.isInteger(index) ? index : 0;
  const results: FunctionResult[] = new Array(changes.length);
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!; // i < changes.length
    results[i] = {
      message: `set image from ${c.from} to ${c.to}`,
      severity: "info",
      resourceRef,
      field: { path: c.path, currentValue: c.from, proposedValue: c.to },
      file: path === undefined ? { index: file } : { path, index: file },
    };
  }
  return results;
}

/**
 * The run by item: each resource's share is the results of the images set in it (none for a
 * CustomResourceDefinition or a document that is not a mapping); the run reports them all in item
 * order, or "no images changed".
 */
function imageSplit(cfg: SetImageConfig): DecidingSplit {
  const matcher = imageMatcher(cfg.image.name);
  const fields = cfg.fields;
  // The field specs that select an apiVersion and kind (in their order), worked out once per run.
  const selecting = perKind((apiVersion, kind): ImageFieldSpec[] => {
    const gvk = gvkOfParts(apiVersion, kind);
    return fields.filter((fs) => fs.path.length > 0 && gvkMatches(gvk, fs.group, fs.version, fs.kind));
  });
  return {
    item(doc) {
      const root = rootMap(doc);
      if (!root) return undefined;
      // The kind and group-version the specs select by, read before any image is set (two short walks
      // of the top-level fields: the whole head, metadata's too, is read only for a change's results).
      const kind = kindOf(doc);
      if (kind === "CustomResourceDefinition") return undefined;
      const selected = selecting(apiVersionOf(doc), kind);
      const changes: ImageChange[] = [];
      for (let i = 0; i < selected.length; i++)
        visitImages(root, selected[i]!, 0, cfg.image, matcher, changes); // i < selected.length
      return changes.length > 0 ? changeResults(doc, changes) : undefined;
    },
    combine(shares) {
      const results: FunctionResult[] = [];
      for (const share of shares) if (share) results.push(...(share as FunctionResult[]));
      return results.length === 0 ? [infoResult("no images changed")] : results;
    },
    rerun: imageRerun(cfg, matcher),
  };
}

/**
 * A run over its own output finds each image it set, and sets it again where the rule still matches
 * it: to the same image where the rule keeps its name (`set image from X to X`), else nothing is
 * promised (a new name the rule's name matches again, a digest after a tag). An image it did not match
 * it leaves, as before. It reads the images at its field specs, the resource's id and file annotations
 * (its results name them); it writes the images.
 */
function imageRerun(cfg: SetImageConfig, matcher: GoRegexp | undefined): Rerun {
  const images: FieldPattern[] = cfg.fields.map((fs) =>
    fs.keys.flatMap((k, i) => (fs.each[i] ? [k, "*"] : [k])),
  );
  const reads: FieldPattern[] = [...ID_FIELDS, ...FILE_FIELDS, ...images];
  return {
    again(share) {
      if (!share) return share;
      const out: FunctionResult[] = [];
      for (const r of share as FunctionResult[]) {
        // `set image from <from> to <to>`: an image holds no space.
        const to = r.message.slice(r.message.lastIndexOf(" ") + 1);
        const again = applyImageRule(to, cfg.image, matcher);
        if (again === undefined) continue;
        if (again !== to) return UNSETTLED;
        out.push({ ...r, message: `set image from ${to} to ${to}` });
      }
      return out.length > 0 ? out : undefined;
    },
    reads: () => reads,
    writes: () => images,
  };
}

export const setImage: BuiltinFunction = catalogFunction({
  name: "set-image",
  range: ["v0.1.0", "v0.1.1"],
  readConfig: readSetImageConfig,
  refuse(message, input, release) {
    // set-image/v0.1.1 (kpt-functions-sdk fn) exits 1 with the error and no result; v0.1.0's fnsdk
    // wrote it as an error result and exited 0, so kpt reports the step as passed and goes on.
    if (atLeast(release, "v0.1.1")) refuseAsFailure(message);
    input.results.push(errorResult(message));
    input.exitCode = 0;
    return input;
  },
  run(input, cfg, _release, ctx) {
    const split = imageSplit(cfg);
    input.results.push(...split.combine(itemShares(input.items, split, ctx)));
    return input;
  },
  split: imageSplit,
  // It only gives existing scalars a new value (their style kept); the default field specs reach
  // container images only, an additional one could name a file annotation.
  untouched: (cfg) => ({ folded: true, fileAnnotations: cfg.fields.length === DEFAULT_IMAGE_FIELDS.length }),
});
