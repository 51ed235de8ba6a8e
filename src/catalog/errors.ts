import type { PathSegment } from "../kpt/yaml/yaml-locate.js";

/** One thing wrong with a catalog file or an operation on it. */
export interface CatalogProblem {
  file: string;
  line: number;
  column: number;
  field: string;
  message: string;
}

/** A catalog that cannot be read, or an operation refused because it would break the catalog. */
export class CatalogError extends Error {
  constructor(
    message: string,
    readonly problems: readonly CatalogProblem[] = [],
  ) {
    super(problems.length ? `${message}:\n${problems.map(formatCatalogProblem).join("\n")}` : message);
    this.name = "CatalogError";
  }
}

export function formatCatalogProblem(p: CatalogProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ""}${p.message}`;
}

/** A consistency rule broken in the catalog model, located by its path. */
export interface GraphViolation {
  path: PathSegment[];
  message: string;
}
