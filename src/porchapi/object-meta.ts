import { type FieldProblem, fieldProblemText, labelsAndAnnotationsProblems } from "../api/object-meta.js";
import type { ApiResource, KubeObject } from "./resources.js";
import { ApiError } from "./status.js";

/**
 * Where an object of a kind carries labels and annotations: its metadata's, which the API server checks
 * on every object (ObjectMeta), and a variant's, which fan-out writes into the downstream's Kptfile
 * (Porch's controller onto the downstream PackageRevision's metadata, where the API server would refuse
 * a bad one only then, mid fan-out): refused when the variant is written instead.
 */
const PLACES: Readonly<Record<string, readonly (readonly string[])[]>> = {
  PackageVariant: [["spec"]],
  PackageVariantSet: [["spec", "template"]],
};

const fieldsAt = (obj: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>(
    (at, key) => (typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined),
    obj,
  );

/** The problems of the labels and annotations `obj` carries, each naming its field. */
function labelAndAnnotationProblems(resource: ApiResource, obj: KubeObject): FieldProblem[] {
  const places = [["metadata"], ...(PLACES[resource.kind] ?? [])];
  return places.flatMap((path) => labelsAndAnnotationsProblems(fieldsAt(obj, path), path.join(".")));
}

/**
 * Refuses `obj` with 422 Invalid where its labels or annotations are not Kubernetes', as the API server
 * does (apimachinery's NewInvalid): `Kind.group "name" is invalid: field: Invalid value: …`, one cause per
 * problem. Called before a store is, so a refused object is never written.
 */
export function checkLabelsAndAnnotations(resource: ApiResource, obj: KubeObject, name: string): void {
  const problems = labelAndAnnotationProblems(resource, obj);
  if (problems.length === 0) return;
  const texts = [...new Set(problems.map(fieldProblemText))];
  const all = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  throw new ApiError("Invalid", `${resource.kind}.${resource.group} "${name}" is invalid: ${all}`, {
    name,
    group: resource.group,
    kind: resource.kind,
    causes: problems,
  });
}
