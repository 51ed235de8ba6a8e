import { ANNOTATION } from "../../../kpt/annotations.js";
import type { FieldPattern } from "../../types.js";

/** An annotation of the resource, as a field a Rerun names. */
export function annotationField(key: string): FieldPattern {
  return ["metadata", "annotations", key];
}

/** The resource's group, version and kind: what every builtin reads to choose what it does. */
export const GVK_FIELDS: readonly FieldPattern[] = [["apiVersion"], ["kind"]];

/** The resource's id (its kind and name): what a result names it by. */
export const ID_FIELDS: readonly FieldPattern[] = [
  ...GVK_FIELDS,
  ["metadata", "name"],
  ["metadata", "namespace"],
];

/** The annotations kpt names a resource's file and place in it by (a result's file and index). */
export const FILE_FIELDS: readonly FieldPattern[] = [
  ANNOTATION.path,
  ANNOTATION.index,
  ANNOTATION.internalPath,
  ANNOTATION.internalIndex,
].map(annotationField);
