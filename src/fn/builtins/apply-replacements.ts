import { type Document, isMap, isScalar, isSeq, type Node, parseDocument, Scalar } from "yaml";
import { goQuoteString } from "../../api/go-quote.js";
import { labelsMatch, parseLabelSelector, SelectorError } from "../../api/label-selector.js";
import { apiVersionOf, getAnnotations, getLabels, kindOf } from "../../kpt/resource.js";
import { atLeast } from "../releases.js";
import { type BuiltinFunction, FunctionError } from "../types.js";
import { isEmptyConfig } from "./util/catalog-fnconfig.js";
import { catalogFunction } from "./util/catalog-function.js";
import {
  type FieldOptions,
  parseReplacements,
  type Replacement,
  ReplacementConfigError,
  type Selector,
  type SourceSelector,
  type TargetSelector,
} from "./util/replacement-config.js";
import {
  lookupCreate,
  lookupPath,
  matchPath,
  type NodeKind,
  PathError,
  type Slot,
  splitFieldPath,
} from "./util/replacement-path.js";
import { formatResId, isEmptyResId, isSelectedBy, type ResId, resIdsOf } from "./util/replacement-resid.js";
import { scalarText } from "./util/yaml-scalar.js";

const CONFIG_API_VERSION = "fn.kpt.dev/v1alpha1";
const CONFIG_KIND = "ApplyReplacements";
const DEFAULT_FIELD_PATH = "metadata.name";

/**
 * apply-replacements (kpt functions catalog v0.1): kustomize's replacements over the package. Each
 * replacement copies one field of one source resource into fields of the selected target resources,
 * whole or as one part of a delimited string, creating missing target fields when asked.
 */
export const applyReplacements: BuiltinFunction = catalogFunction({
  name: "apply-replacements",
  range: ["v0.1.0", "v0.1.2"],
  readConfig(config, release) {
    // apply-replacements/v0.1.1 names a missing config; v0.1.0 reports its empty kind and apiVersion.
    if (isEmptyConfig(config) && atLeast(release, "v0.1.1")) {
      return "FunctionConfig is missing. Expect `ApplyReplacements`";
    }
    const kind = config ? kindOf(config) : "";
    const apiVersion = config ? apiVersionOf(config) : "";
    if (!config || kind !== CONFIG_KIND || apiVersion !== CONFIG_API_VERSION) {
      return `received functionConfig of kind ${kind} and apiVersion ${apiVersion}, only functionConfig of kind ${CONFIG_KIND} and apiVersion ${CONFIG_API_VERSION} is supported`;
    }
    try {
      return parseReplacements(config);
    } catch (err) {
      if (isReplacementFailure(err)) return err.message;
      throw err;
    }
  },
  refuse: fail,
  run(rl, replacements, release, ctx) {
    try {
      for (const r of replacements) {
        ctx.signal?.throwIfAborted();
        applyOne(rl.items, r, release);
      }
    } catch (err) {
      if (isReplacementFailure(err)) fail(err.message);
      throw err;
    }
    return rl;
  },
});

/** The failures apply-replacements reports as its error (any other is a bug, and thrown as one). */
function isReplacementFailure(err: unknown): err is Error {
  return (
    err instanceof ReplacementError ||
    err instanceof PathError ||
    err instanceof ReplacementConfigError ||
    err instanceof SelectorError
  );
}

class ReplacementError extends Error {}

function fail(message: string): never {
  throw new FunctionError(message, [{ message, severity: "error" }]);
}

function applyOne(items: readonly Document[], r: Replacement, release: string): void {
  if (!r.source || !r.targets) {
    throw new ReplacementError("replacements must specify a source and at least one target");
  }
  const value = sourceValue(items, r.source);
  for (const target of r.targets) applyTarget(items, value, target, release);
}

/** The source field's node (a copy when options take part of it). */
function sourceValue(items: readonly Document[], source: SourceSelector): Node {
  const doc = selectSource(items, source.id);
  const fieldPath = source.fieldPath || DEFAULT_FIELD_PATH;
  const node = lookupPath(doc.contents, splitFieldPath(fieldPath));
  if (isNilOrEmpty(node)) {
    throw new ReplacementError(
      `fieldPath \`${fieldPath}\` is missing for replacement source ${formatResId(source.id)}`,
    );
  }
  const options = source.options;
  if (!options || options.delimiter === "") return node as Node;
  if (!isScalar(node)) throw new ReplacementError("delimiter option can only be used with scalar nodes");
  const parts = scalarText(node).split(options.delimiter);
  if (options.index >= parts.length || options.index < 0) {
    throw new ReplacementError(
      `options.index ${options.index} is out of bounds for value ${scalarText(node)}`,
    );
  }
  return withText(node, parts[options.index] ?? "");
}

function selectSource(items: readonly Document[], selector: ResId): Document {
  let match: Document | undefined;
  for (const doc of items) {
    if (!resIdsOf(doc).some((id) => isSelectedBy(id, selector))) continue;
    if (match) throw new ReplacementError(`multiple matches for selector ${formatResId(selector)}`);
    match = doc;
  }
  if (!match) throw new ReplacementError(`nothing selected by ${formatResId(selector)}`);
  return match;
}

function isNilOrEmpty(node: unknown): boolean {
  if (node === undefined || node === null) return true;
  if (isScalar(node)) return node.value === null || node.value === undefined;
  if (isMap(node) || isSeq(node)) return node.items.length === 0;
  return false;
}

function applyTarget(items: readonly Document[], value: Node, target: TargetSelector, release: string): void {
  const select = target.select;
  if (!select) throw new ReplacementError("target must specify resources to select");
  const fieldPaths = target.fieldPaths.length > 0 ? target.fieldPaths : [DEFAULT_FIELD_PATH];
  const matchesSelect = metadataMatcher(select);
  const rejectByMetadata = target.reject
    .filter((r) => r.labelSelector !== "" || r.annotationSelector !== "")
    .map(metadataMatcher);
  for (const doc of items) {
    if (!matchesSelect(doc) || rejectByMetadata.some((m) => m(doc))) continue;
    const selected = resIdsOf(doc).some(
      (id) =>
        isSelectedBy(id, select.id) &&
        !target.reject.some((r) => !isEmptyResId(r.id) && isSelectedBy(id, r.id)),
    );
    if (selected) applyToDocument(doc, value, fieldPaths, target.options, release);
  }
}

/** The label and annotation selectors of a selector as one test ("" selects everything). */
function metadataMatcher(selector: Selector): (doc: Document) => boolean {
  const labels = parseLabelSelector(selector.labelSelector);
  const annotations = parseLabelSelector(selector.annotationSelector);
  return (doc) => labelsMatch(annotations, getAnnotations(doc)) && labelsMatch(labels, getLabels(doc));
}

function applyToDocument(
  doc: Document,
  value: Node,
  fieldPaths: readonly string[],
  options: FieldOptions | undefined,
  release: string,
): void {
  const root: Slot = { node: doc.contents, replace: (next) => (doc.contents = next as Document["contents"]) };
  // apply-replacements/v0.1.2 (kustomize api v0.19) fails on a target field it cannot find and writes
  // only the value into a scalar target (its type, quoting and comments stay); v0.1.0 and v0.1.1
  // (api v0.10) skip a missing field and put a copy of the source node in the target's place.
  const v012 = atLeast(release, "v0.1.2");
  for (const fieldPath of fieldPaths) {
    const parts = splitFieldPath(fieldPath);
    let slots: Slot[];
    if (options?.create) {
      if (parts.includes("*"))
        throw new ReplacementError("cannot support create option in a multi-value target");
      const slot = lookupCreate(root, parts, nodeKind(value));
      slots = slot ? [slot] : [];
    } else {
      slots = [...matchPath(root, parts)];
    }
    if (slots.length === 0 && v012) {
      const what = options?.create ? "find or create" : "find";
      throw new ReplacementError(`unable to ${what} field ${goQuoteString(fieldPath)} in replacement target`);
    }
    for (const slot of slots) setTargetValue(slot, value, options, v012);
  }
}

function nodeKind(node: Node): NodeKind {
  if (isMap(node)) return "map";
  if (isSeq(node)) return "seq";
  return "scalar";
}

/** Puts a copy of the value in the target's place: the whole node, or one part of a delimited string. */
function setTargetValue(
  slot: Slot,
  value: Node,
  options: FieldOptions | undefined,
  keepScalar: boolean,
): void {
  let next = copyNode(value);
  if (options && options.delimiter !== "") {
    if (!isScalar(slot.node))
      throw new ReplacementError("delimiter option can only be used with scalar nodes");
    const parts = scalarText(slot.node).split(options.delimiter);
    const part = isScalar(value) ? scalarText(value) : "";
    if (options.index < 0) parts.unshift(part);
    else if (options.index >= parts.length) parts.push(part);
    else parts[options.index] = part;
    next = withText(isScalar(value) ? value : new Scalar(""), parts.join(options.delimiter));
  }
  if (keepScalar && isScalar(slot.node)) {
    retext(slot.node, isScalar(next) ? scalarText(next) : "");
    return;
  }
  slot.replace(next);
}

/**
 * A scalar given new text, as kyaml's `YNode().Value = ...` does: its tag stays, so the text is written
 * plain when it reads as the scalar's type and quoted when a string would read as something else.
 */
function retext(node: Scalar, text: string): void {
  const wasString = typeof node.value === "string";
  const parsed = parseDocument(text).contents;
  const reads = isScalar(parsed) ? parsed.value : text;
  node.format = undefined;
  node.minFractionDigits = undefined;
  (node as { source?: string }).source = text;
  if (wasString) {
    node.value = text;
    const readsAsString = typeof reads === "string" && text !== "";
    if (!readsAsString && node.type !== Scalar.QUOTE_SINGLE) node.type = Scalar.QUOTE_DOUBLE;
  } else {
    node.value = reads === null || reads === undefined ? text : reads;
  }
}

function copyNode(node: Node): Node {
  const copy = node.clone() as Node;
  copy.spaceBefore = false;
  return copy;
}

/** A copy of a scalar holding another string (quote style and comments kept). */
function withText(node: Scalar, text: string): Scalar {
  const copy = copyNode(node) as Scalar;
  copy.value = text;
  (copy as { source?: string }).source = text;
  copy.format = undefined;
  copy.minFractionDigits = undefined;
  copy.tag = undefined;
  return copy;
}
