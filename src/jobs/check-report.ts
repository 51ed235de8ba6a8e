import type { CheckRunInput, CheckRunState, RepoChecks } from "../github/port.js";
import { isKptfilePath } from "../kpt/kptfile.js";
import type { FileTree } from "../kpt/tree.js";
import type { CheckAnnotation } from "../lifecycle/check-run.js";
import {
  capAnnotations,
  fitCheckOutput,
  MAX_ANNOTATIONS_PER_CHECK,
  SUPERSEDED_CHECK,
} from "../lifecycle/check-run.js";
import type { RenderFinding } from "./renderer.js";

export type Conclusion = NonNullable<CheckRunInput["conclusion"]>;

export interface CheckReport {
  name: string;
  headSha: string;
  conclusion: Conclusion;
  title: string;
  summary: string;
  text?: string;
  annotations?: readonly CheckAnnotation[];
  /** Where to see every result when some annotations are left out, e.g. "Run `porchlight fn render apps/web` locally". */
  seeAll?: string;
  /** What the run checked or how it ended, for the bot to read back (GitHub's `external_id`). */
  externalId?: string;
}

/**
 * Writes one completed check run for (name, head): created once, updated in place after. At most
 * MAX_ANNOTATIONS_PER_CHECK annotations, the most severe first; the summary says how many more there
 * were and where to see them.
 */
export async function reportCheck(port: RepoChecks, report: CheckReport): Promise<number> {
  const { kept, omitted } = capAnnotations(report.annotations ?? []);
  const summary = omitted === 0 ? report.summary : `${report.summary}\n\n${moreNote(omitted, report.seeAll)}`;
  const fitted = fitCheckOutput({
    title: report.title,
    summary,
    annotations: kept,
    ...(report.text !== undefined ? { text: report.text } : {}),
  });
  return port.upsertCheckRun({
    name: report.name,
    headSha: report.headSha,
    ...(report.externalId !== undefined ? { externalId: report.externalId } : {}),
    status: "completed",
    conclusion: report.conclusion,
    title: fitted.title,
    summary: fitted.summary,
    ...(fitted.text !== undefined ? { text: fitted.text } : {}),
    annotations: fitted.annotations,
  });
}

/** "…and N more" for a summary whose annotations were cut. */
function moreNote(omitted: number, seeAll?: string): string {
  const n = omitted.toLocaleString("en-US");
  return `…and ${n} more ${omitted === 1 ? "annotation" : "annotations"}: a check shows the first ${MAX_ANNOTATIONS_PER_CHECK}, the most severe first.${seeAll ? ` ${seeAll}` : ""}`;
}

/**
 * Whether `name` already completed on `sha` (a job that runs again leaves it as it is). The neutral
 * check of a head that was passed over for a newer one does not count: that head was never checked.
 */
export async function checkCompleted(
  port: RepoChecks,
  sha: string,
  names: readonly string[],
): Promise<boolean> {
  return completedIn(await port.listCheckRuns(sha, names), names);
}

/** checkCompleted, of a commit's runs listed already. */
export function completedIn(runs: readonly CheckRunState[], names: readonly string[]): boolean {
  return names.every((n) =>
    runs.some((r) => r.name === n && r.status === "completed" && r.externalId !== SUPERSEDED_CHECK),
  );
}

const LEVEL: Record<RenderFinding["severity"], CheckAnnotation["annotation_level"]> = {
  error: "failure",
  warning: "warning",
  info: "notice",
};

/**
 * Each function result as an annotation on its file and line (repository-relative); a result that
 * names no file is shown on the package's Kptfile, so no result is lost.
 */
export function findingAnnotations(pkg: string, findings: readonly RenderFinding[]): CheckAnnotation[] {
  const prefix = pkg === "" ? "" : `${pkg}/`;
  return findings.map((f) => {
    const line = f.line ?? 1;
    return {
      path: `${prefix}${f.file ?? "Kptfile"}`,
      start_line: line,
      end_line: line,
      annotation_level: LEVEL[f.severity],
      title: f.function,
      message: f.message,
    };
  });
}

/**
 * The files of a package whose info results a check annotates, given the files a change touched
 * (paths relative to the package): those files, as linters annotate the lines a change touched; errors
 * and warnings are annotated on every file. Undefined (every file) when the change touched what every
 * file's render reads: a Kptfile (the pipeline, inline function configs) or a file a Kptfile may name
 * as a function's `configPath`.
 */
export function changeScope(changed: readonly string[], tree: FileTree): ReadonlySet<string> | undefined {
  const kptfiles = [...tree].filter(([p]) => isKptfilePath(p)).map(([, bytes]) => bytes);
  if (changed.some((p) => isKptfilePath(p) || mayBeConfig(kptfiles, p))) return undefined;
  return new Set(changed);
}

/**
 * Whether one of the package's Kptfiles may name `path` as a function's `configPath`: its text holds
 * the file's name. Conservative (a name that only appears elsewhere widens the scope too) and cheap: no
 * Kptfile is parsed.
 */
function mayBeConfig(kptfiles: readonly Buffer[], path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return kptfiles.some((text) => text.includes(name));
}

/** The findings a check annotates within `scope` (every one when undefined), and how many info results it left out. */
export function scopedFindings(
  findings: readonly RenderFinding[],
  scope: ReadonlySet<string> | undefined,
): { shown: readonly RenderFinding[]; elsewhere: number } {
  const shown = scope
    ? findings.filter((f) => f.severity !== "info" || scope.has(f.file ?? "Kptfile"))
    : findings;
  return { shown, elsewhere: findings.length - shown.length };
}

/** `3 errors, 1 warning` style counts for a check title. */
export function findingCounts(findings: readonly RenderFinding[]): string {
  const n = (s: RenderFinding["severity"]) => findings.filter((f) => f.severity === s).length;
  const parts: string[] = [];
  const errors = n("error");
  const warnings = n("warning");
  if (errors) parts.push(`${errors} ${errors === 1 ? "error" : "errors"}`);
  if (warnings) parts.push(`${warnings} ${warnings === 1 ? "warning" : "warnings"}`);
  return parts.length === 0 ? "no problems" : parts.join(", ");
}
