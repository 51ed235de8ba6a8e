import type { Document } from "yaml";
import type { Selector } from "../kpt/kptfile.js";
import { apiVersionOf, getAnnotations, getLabels, kindOf, nameOf, namespaceOf } from "../kpt/resource.js";

/**
 * kpt's function selectors: a resource is selected when it matches any selector (all of a selector's
 * fields must match; labels and annotations as subsets) and no exclude. No selectors selects everything.
 */
export function isSelected(
  doc: Document,
  selectors: readonly Selector[],
  exclude: readonly Selector[],
): boolean {
  if (selectors.length > 0 && !selectors.some((s) => matches(doc, s))) return false;
  return !exclude.some((s) => matches(doc, s));
}

function matches(doc: Document, s: Selector): boolean {
  if (isEmptySelector(s)) return false;
  if (s.apiVersion !== undefined && s.apiVersion !== apiVersionOf(doc)) return false;
  if (s.kind !== undefined && s.kind !== kindOf(doc)) return false;
  if (s.name !== undefined && s.name !== nameOf(doc)) return false;
  if (s.namespace !== undefined && s.namespace !== namespaceOf(doc)) return false;
  if (s.labels && !subset(s.labels, getLabels(doc))) return false;
  if (s.annotations && !subset(s.annotations, getAnnotations(doc))) return false;
  return true;
}

function isEmptySelector(s: Selector): boolean {
  return (
    s.apiVersion === undefined &&
    s.kind === undefined &&
    s.name === undefined &&
    s.namespace === undefined &&
    (s.labels === undefined || Object.keys(s.labels).length === 0) &&
    (s.annotations === undefined || Object.keys(s.annotations).length === 0)
  );
}

function subset(want: Record<string, string>, have: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

/** The selected items and the rest, each in input order. */
export function partition(
  items: readonly Document[],
  selectors: readonly Selector[],
  exclude: readonly Selector[],
): { selected: Document[]; rest: Document[] } {
  const selected: Document[] = [];
  const rest: Document[] = [];
  for (const doc of items) (isSelected(doc, selectors, exclude) ? selected : rest).push(doc);
  return { selected, rest };
}
