import type { FieldRequirement } from "./selectors.js";

/** What Porch's field selectors read of a PackageRevision (api/porch/v1alpha1 PackageRevisionSelectableFields). */
export interface SelectableRevision {
  name: string;
  namespace: string;
  repository: string;
  packageName: string;
  workspaceName: string;
  revision: number;
  lifecycle: string;
}

const FIELDS = {
  "metadata.name": (r: SelectableRevision) => r.name,
  "metadata.namespace": (r: SelectableRevision) => r.namespace,
  "spec.repository": (r: SelectableRevision) => r.repository,
  "spec.packageName": (r: SelectableRevision) => r.packageName,
  "spec.workspaceName": (r: SelectableRevision) => r.workspaceName,
  "spec.revision": (r: SelectableRevision) => String(r.revision),
  "spec.lifecycle": (r: SelectableRevision) => r.lifecycle,
} as const;

const LIFECYCLES = ["Draft", "Proposed", "Published", "DeletionProposed"];
const KPTFILE_LABEL = /^spec\.packageMetadata\.labels\[(.*)\]$/;

/**
 * Refuses what Porch's API server refuses, in its words, with what to write instead: an unknown field, a
 * lifecycle that is none, an empty value, a revision that is no number.
 */
export function checkFieldSelector(requirements: readonly FieldRequirement[]): string | undefined {
  for (const r of requirements) {
    const label = KPTFILE_LABEL.exec(r.field);
    if (label) {
      if (label[1] === "") return `label key cannot be empty in field selector "${r.field}"`;
    } else if (!Object.hasOwn(FIELDS, r.field))
      return `"${r.field}" is not a known field selector: PackageRevisions are selected by ${Object.keys(FIELDS).join(", ")} and spec.packageMetadata.labels[KEY]`;
    if (r.value === "")
      return `unsupported fieldSelector value "" for field "${r.field}" with operator "${r.op}": give the value to compare with`;
    if (r.field === "spec.lifecycle" && !LIFECYCLES.includes(r.value))
      return `unsupported fieldSelector value "${r.value}" for field "spec.lifecycle": a lifecycle is ${LIFECYCLES.join(", ")}`;
    if (r.field === "spec.revision" && !/^(-1|v?\d+)$/.test(r.value))
      return `unsupported fieldSelector value "${r.value}" for field "spec.revision": a revision is a number (0 unpublished, -1 the registered branch's)`;
  }
  return undefined;
}

/** Whether a requirement reads the Kptfile (so the listing must read each revision's Kptfile). */
export function readsKptfile(requirements: readonly FieldRequirement[]): boolean {
  return requirements.some((r) => KPTFILE_LABEL.test(r.field));
}

/**
 * Whether the repository registration `name` can hold a revision the requirements select: the
 * `spec.repository` ones decide before anything is read (Porch's hanging-repository test lists one
 * repository so, without waiting on the others).
 */
export function repositorySelected(requirements: readonly FieldRequirement[], name: string): boolean {
  return requirements.every(
    (r) => r.field !== "spec.repository" || (r.op === "=" ? r.value === name : r.value !== name),
  );
}

/** Whether `rev` (and its Kptfile's labels, when read) meets every requirement. */
export function fieldsMatch(
  requirements: readonly FieldRequirement[],
  rev: SelectableRevision,
  kptfileLabels: Record<string, string> | undefined,
): boolean {
  return requirements.every((r) => {
    const label = KPTFILE_LABEL.exec(r.field);
    const actual = label ? kptfileLabels?.[label[1] ?? ""] : FIELDS[r.field as keyof typeof FIELDS](rev);
    const expected = r.field === "spec.revision" ? String(Number(r.value.replace(/^v/, ""))) : r.value;
    return (actual === expected) === (r.op === "=");
  });
}
