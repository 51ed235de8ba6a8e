import type { UpstreamRefusal } from "./upstream-refusal.js";

/**
 * Something wrong with a variant file or a variant, reported to the person who wrote it: on the check run of
 * the management repository's pull request (as an annotation at `file:line`) and on the dashboard.
 */
export interface VariantProblem {
  /** Path of the variant file in the management repository, e.g. `.porchlight/variants/basens.yaml`. */
  file: string;
  line: number;
  column: number;
  /** The field at fault, as a YAML path (`spec.upstream.revision`); empty for the document as a whole. */
  field: string;
  /** The name of the PackageVariant(Set) at fault, when known. */
  variant?: string;
  /** What is wrong. */
  message: string;
  /** What to do about it. */
  hint?: string;
  /** The field is missing, not wrong (Kubernetes' FieldValueRequired, where the API answers it). */
  missing?: true;
  /**
   * `warning`: the variant still runs as written, but likely not as meant (the check passes, the annotation
   * and the dashboard say so). Absent: an error, and the variant at fault is skipped.
   */
  severity?: "warning";
  /**
   * The variant's upstream is not read for it (who may make the bot read what): the dashboard keeps it in
   * a hidden marker, which Porch's API reads for the variant's status.
   */
  refusal?: UpstreamRefusal;
}

/** One line per problem, `file:line:column: field: message (hint)`, for logs and the CLI. */
export function formatProblem(p: VariantProblem): string {
  const where = `${p.file}:${p.line}:${p.column}`;
  // A message in Porch's words names its field already (`spec.adoptionPolicy field can only be …`).
  const field = p.field && !p.message.startsWith(p.field) ? `${p.field}: ` : "";
  const hint = p.hint ? ` (${p.hint})` : "";
  const level = p.severity === "warning" ? "warning: " : "";
  return `${where}: ${level}${field}${p.message}${hint}`;
}
