import { Document } from "yaml";
import type { FunctionResult } from "../fn/types.js";
import { formatDocument } from "../kpt/yaml/format.js";

/** What one function run produced, as kpt records it in results.yaml (a FunctionResultList item). */
export interface FunctionRecord {
  image?: string;
  exec?: string;
  stderr?: string;
  exitCode: number;
  results: FunctionResult[];
  /**
   * Absolute directory of the package whose pipeline ran the function (not in results.yaml). A result's
   * `file.path` is relative to its resource's own package: this one, or one of its subpackages.
   */
  packageDir?: string;
  /** A validator ran (not in results.yaml; kpt's Kptfile renderStatus lists validators apart). */
  validator?: boolean;
}

/** kpt's one-line form of a result: `[severity] apiVersion/Kind/namespace/name field: message`. */
export function resultLine(r: FunctionResult): string {
  let s = `[${r.severity ?? "info"}]`;
  const ref = r.resourceRef;
  if (ref) {
    const id = [ref.apiVersion, ref.kind, ref.namespace, ref.name].filter((p) => p !== undefined && p !== "");
    if (id.length > 0) s += ` ${id.join("/")}`;
  }
  if (r.field?.path) s += ` ${r.field.path}`;
  return `${s}: ${r.message}`;
}

/** Lines kpt prints at most under "Results:" or "Stderr:" before truncating. */
const TRUNCATE_LINES = 4;

/** A titled, indented block of lines as kpt prints results and stderr ("  Results:\n    ..."). */
export function printBlock(title: string, lines: readonly string[], quote: boolean, truncate = true): string {
  let out = `  ${title}:\n`;
  const shown = truncate ? lines.slice(0, TRUNCATE_LINES) : lines;
  for (const l of shown) {
    const text = l.replaceAll("\n", " ");
    out += `    ${quote ? JSON.stringify(text) : text}\n`;
  }
  const hidden = lines.length - shown.length;
  if (hidden > 0) {
    out += `    ...(${hidden} line(s) truncated, use '--truncate-output=false' to disable)\n`;
  }
  return out;
}

/** results.yaml: kpt's FunctionResultList, written with wide sequence indentation as kpt does. */
export function formatResultsFile(records: readonly FunctionRecord[]): string {
  // kpt sets the list's exit code only when a function process failed, not for other render errors.
  const exitCode = records.some((r) => r.exitCode !== 0) ? 1 : 0;
  const list = {
    apiVersion: "kpt.dev/v1",
    kind: "FunctionResultList",
    metadata: { name: "fnresults" },
    exitCode,
    ...(records.length > 0 ? { items: records.map(recordFields) } : {}),
  };
  return formatDocument(new Document(list), "wide");
}

/** A record with kpt's field order and no empty fields. */
function recordFields(rec: FunctionRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (rec.image) out.image = rec.image;
  if (rec.exec) out.exec = rec.exec;
  if (rec.stderr) out.stderr = rec.stderr;
  out.exitCode = rec.exitCode;
  if (rec.results.length > 0) out.results = rec.results.map(resultFields);
  return out;
}

function resultFields(r: FunctionResult): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // kpt leaves an empty message out, as its other empty fields
  if (r.message) out.message = r.message;
  if (r.severity) out.severity = r.severity;
  if (r.resourceRef) out.resourceRef = pick(r.resourceRef, ["apiVersion", "kind", "name", "namespace"]);
  if (r.field) out.field = pick(r.field, ["path", "currentValue", "proposedValue"]);
  // kpt omits empty fields, a zero index included.
  if (r.file && (r.file.path || r.file.index))
    out.file = pick({ ...r.file, index: r.file.index || undefined }, ["path", "index"]);
  if (r.tags && Object.keys(r.tags).length > 0) out.tags = r.tags;
  return out;
}

function pick<T extends object>(o: T, keys: readonly (keyof T)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (o[k] !== undefined && o[k] !== "") out[k as string] = o[k];
  }
  return out;
}
