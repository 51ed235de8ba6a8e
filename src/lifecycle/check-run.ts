/**
 * Check run output as GitHub takes it, and its limits: at most 50 annotations per create or update
 * call, and title, summary and text each at most 65,535 characters.
 */

const MAX_ANNOTATIONS_PER_CALL = 50;
export const MAX_CHECK_OUTPUT_CHARS = 65_535;
/**
 * The most annotations one check run carries: 500 is 10 calls of 50, about 10 seconds of an
 * installation's paced writes (one a second) and 2% of its hourly budget, and more than anyone reads
 * in a pull request. A package with 120,000 results once took 2,400 calls and stalled the queue.
 */
export const MAX_ANNOTATIONS_PER_CHECK = 500;

/**
 * The external id of the neutral check a head gets when porchlight never checked it because a newer
 * push came while its check waited (the waiting job took the newer head instead): it says which head
 * was checked. It is no verdict on the commit: a job asking whether a head was checked ignores it.
 */
export const SUPERSEDED_CHECK = "porchlight:superseded";

/** Whether a completed check's conclusion lets a change through: success, or neutral and skipped (GitHub's branch protection counts those as passing too). */
export function passes(conclusion: string | null | undefined): boolean {
  return conclusion === "success" || conclusion === "neutral" || conclusion === "skipped";
}

type AnnotationLevel = "notice" | "warning" | "failure";

/** One check run annotation, with GitHub's field names. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  /** Only allowed by GitHub when start_line equals end_line. */
  start_column?: number;
  end_column?: number;
  annotation_level: AnnotationLevel;
  message: string;
  title?: string;
}

export interface CheckOutput {
  title: string;
  summary: string;
  text?: string;
  annotations: CheckAnnotation[];
}

const SEVERITY: Record<AnnotationLevel, number> = { failure: 0, warning: 1, notice: 2 };

/**
 * The annotations a check run shows: at most `max`, the most severe first (failures, then warnings,
 * then notices; each level in its given order), and how many were left out.
 */
export function capAnnotations(
  annotations: readonly CheckAnnotation[],
  max = MAX_ANNOTATIONS_PER_CHECK,
): { kept: CheckAnnotation[]; omitted: number } {
  if (annotations.length <= max) return { kept: [...annotations], omitted: 0 };
  const ranked = annotations
    .map((a, i) => ({ a, i }))
    .sort((x, y) => SEVERITY[x.a.annotation_level] - SEVERITY[y.a.annotation_level] || x.i - y.i);
  return { kept: ranked.slice(0, max).map((r) => r.a), omitted: annotations.length - max };
}

/** The check run calls to make: the first creates or updates with the first batch, the rest append. */
export function batchAnnotations(
  annotations: readonly CheckAnnotation[],
  size = MAX_ANNOTATIONS_PER_CALL,
): CheckAnnotation[][] {
  if (size < 1) throw new RangeError(`batch size must be at least 1, got ${size}`);
  const batches: CheckAnnotation[][] = [];
  for (let i = 0; i < annotations.length; i += size) {
    batches.push(annotations.slice(i, i + size).map(fitAnnotation));
  }
  return batches;
}

/** Drops columns GitHub would reject (on multi-line annotations) and keeps the message within limits. */
function fitAnnotation(a: CheckAnnotation): CheckAnnotation {
  const out: CheckAnnotation = { ...a, message: truncateText(a.message, MAX_CHECK_OUTPUT_CHARS) };
  if (a.start_line !== a.end_line) {
    delete out.start_column;
    delete out.end_column;
  }
  return out;
}

/**
 * Cuts text to at most `max` characters, at a line break when one is near, and says so at the end, so a
 * reader knows there was more (and where to look).
 */
export function truncateText(
  text: string,
  max: number,
  note = "(truncated: the full output is in the logs)",
): string {
  if (text.length <= max) return text;
  const tail = `\n\n… ${note}`;
  if (tail.length >= max) return text.slice(0, max);
  let cut = max - tail.length;
  const lineBreak = text.lastIndexOf("\n", cut);
  if (lineBreak > cut * 0.8) cut = lineBreak;
  return text.slice(0, cut) + tail;
}

/** The output with title, summary and text within GitHub's limits; annotations are batched separately. */
export function fitCheckOutput(output: CheckOutput): CheckOutput {
  const fitted: CheckOutput = {
    title: truncateText(output.title, MAX_CHECK_OUTPUT_CHARS),
    summary: truncateText(output.summary, MAX_CHECK_OUTPUT_CHARS),
    annotations: output.annotations,
  };
  if (output.text !== undefined) fitted.text = truncateText(output.text, MAX_CHECK_OUTPUT_CHARS);
  return fitted;
}
