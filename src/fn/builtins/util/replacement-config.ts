import type { Document } from "yaml";
import type { ResId } from "./replacement-resid.js";

/**
 * The `replacements:` list of an `fn.kpt.dev/v1alpha1 ApplyReplacements` config, with kustomize's field
 * names (`types.Replacement`): each a source (a resource selector, a field path, options) and targets
 * (select, reject, fieldPaths, options).
 */

export interface FieldOptions {
  delimiter: string;
  index: number;
  create: boolean;
}

export interface Selector {
  id: ResId;
  labelSelector: string;
  annotationSelector: string;
}

export interface SourceSelector {
  id: ResId;
  fieldPath: string;
  options?: FieldOptions;
}

export interface TargetSelector {
  select?: Selector;
  reject: Selector[];
  fieldPaths: string[];
  options?: FieldOptions;
}

export interface Replacement {
  source?: SourceSelector;
  targets?: TargetSelector[];
}

/** A config that does not decode, with the field that is wrong. */
export class ReplacementConfigError extends Error {}

type Plain = Record<string, unknown>;

/** Reads `replacements:` from the function config (the rest of it is ignored, as Go's decoding does). */
export function parseReplacements(config: Document): Replacement[] {
  const root: unknown = config.toJS({ maxAliasCount: -1 });
  if (!isObject(root)) return [];
  const list = root.replacements;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw wrong("replacements", "a list");
  return list.map((entry, i) => replacement(entry, `replacements[${i}]`));
}

function replacement(value: unknown, at: string): Replacement {
  const obj = object(value, at);
  const out: Replacement = {};
  if (obj.source !== undefined && obj.source !== null) out.source = source(obj.source, `${at}.source`);
  if (obj.targets !== undefined && obj.targets !== null) {
    if (!Array.isArray(obj.targets)) throw wrong(`${at}.targets`, "a list");
    out.targets = obj.targets.map((t, i) => target(t, `${at}.targets[${i}]`));
  }
  return out;
}

function source(value: unknown, at: string): SourceSelector {
  const obj = object(value, at);
  const out: SourceSelector = { id: resId(obj, at), fieldPath: str(obj, "fieldPath", at) };
  if (obj.options !== undefined && obj.options !== null) out.options = options(obj.options, `${at}.options`);
  return out;
}

function target(value: unknown, at: string): TargetSelector {
  const obj = object(value, at);
  const out: TargetSelector = { reject: [], fieldPaths: [] };
  if (obj.select !== undefined && obj.select !== null) out.select = selector(obj.select, `${at}.select`);
  if (obj.reject !== undefined && obj.reject !== null) {
    if (!Array.isArray(obj.reject)) throw wrong(`${at}.reject`, "a list");
    out.reject = obj.reject.map((r, i) => selector(r, `${at}.reject[${i}]`));
  }
  if (obj.fieldPaths !== undefined && obj.fieldPaths !== null) {
    if (!Array.isArray(obj.fieldPaths)) throw wrong(`${at}.fieldPaths`, "a list of strings");
    out.fieldPaths = obj.fieldPaths.map((p, i) => {
      if (typeof p !== "string") throw wrong(`${at}.fieldPaths[${i}]`, "a string");
      return p;
    });
  }
  if (obj.options !== undefined && obj.options !== null) out.options = options(obj.options, `${at}.options`);
  return out;
}

function selector(value: unknown, at: string): Selector {
  const obj = object(value, at);
  return {
    id: resId(obj, at),
    labelSelector: str(obj, "labelSelector", at),
    annotationSelector: str(obj, "annotationSelector", at),
  };
}

function resId(obj: Plain, at: string): ResId {
  return {
    group: str(obj, "group", at),
    version: str(obj, "version", at),
    kind: str(obj, "kind", at),
    name: str(obj, "name", at),
    namespace: str(obj, "namespace", at),
  };
}

function options(value: unknown, at: string): FieldOptions {
  const obj = object(value, at);
  const index = obj.index ?? 0;
  if (typeof index !== "number" || !Number.isInteger(index)) throw wrong(`${at}.index`, "an integer");
  const create = obj.create ?? false;
  if (typeof create !== "boolean") throw wrong(`${at}.create`, "a boolean");
  return { delimiter: str(obj, "delimiter", at), index, create };
}

function str(obj: Plain, key: string, at: string): string {
  const value = obj[key];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw wrong(`${at}.${key}`, "a string");
  return value;
}

function object(value: unknown, at: string): Plain {
  if (!isObject(value)) throw wrong(at, "a mapping");
  return value;
}

function isObject(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function wrong(at: string, expected: string): ReplacementConfigError {
  return new ReplacementConfigError(
    `unable to convert functionConfig to replacements:\n${at} must be ${expected}`,
  );
}
