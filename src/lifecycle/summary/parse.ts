import { SUMMARY_FORMAT_VERSION, SUMMARY_MARKER } from "./format.js";

export interface SummaryMeta {
  version: number;
  /** The head the comment describes; the bot rewrites the comment when the pull request's head moves. */
  headSha: string;
}

const META = /<!-- porchlight:summary-meta version=(\d+) head=([0-9a-f]+) -->/;

function isSummaryComment(body: string): boolean {
  return body.startsWith(SUMMARY_MARKER) || body.includes(`\n${SUMMARY_MARKER}`);
}

/** The summary comment's hidden fields, or undefined when the body is not a porchlight summary. */
export function parseSummary(body: string): SummaryMeta | undefined {
  if (!isSummaryComment(body)) return undefined;
  const match = META.exec(body);
  if (!match?.[1] || !match[2]) return undefined;
  return { version: Number(match[1]), headSha: match[2] };
}

/** Whether the comment must be rewritten: missing, of an older format, or about another head. */
export function summaryNeedsUpdate(
  body: string | undefined,
  headSha: string,
  version = SUMMARY_FORMAT_VERSION,
): boolean {
  const meta = body === undefined ? undefined : parseSummary(body);
  return !meta || meta.version !== version || meta.headSha !== headSha;
}
