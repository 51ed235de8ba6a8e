import type { SweepResult } from "../jobs/reconcile.js";
import { maskSecrets } from "../ops/logger.js";
import type { JobOutcome } from "../queue/repo-queue.js";
import { annotation } from "./workflow-commands.js";

export interface RunSummary {
  /** The event handled, or `reconcile`. */
  event: string;
  repository: string;
  /** What failed outside a job (a handler's error, an unreadable payload). */
  problems: string[];
  outcomes: readonly JobOutcome[];
  sweep: SweepResult | null;
}

interface Failure {
  title: string;
  message: string;
}

const errorText = (e: unknown) => maskSecrets(e instanceof Error ? e.message : String(e));

/** Every failure of a run, each with a title and a message naming what failed in which repository. */
function failures(s: RunSummary): Failure[] {
  const out: Failure[] = s.problems.map((p) => ({
    title: `porchlight ${s.event}`,
    message: `${s.repository}: ${p}`,
  }));
  for (const o of s.outcomes.filter((x) => !x.ok)) {
    const [kind = "job", ...key] = o.key.split(":");
    out.push({
      title: `porchlight ${kind} failed`,
      message: `${o.repo}: the ${kind} job (${key.join(":")}) failed: ${errorText(o.error)}`,
    });
  }
  for (const f of s.sweep?.failures ?? [])
    out.push({
      title: "porchlight reconcile",
      message: `${s.repository}: reconciling ${f.what} failed: ${maskSecrets(f.error)}`,
    });
  return out;
}

/** `porchlight: push on acme/x: 1 job(s) run (render), 0 failed` and the reconcile's counts. */
function headline(s: RunSummary): string {
  const kinds = [...new Set(s.outcomes.map((o) => o.key.split(":")[0]))];
  const ran = `${s.outcomes.length} job(s) run${kinds.length > 0 ? ` (${kinds.join(", ")})` : ""}`;
  const failed = s.outcomes.filter((o) => !o.ok).length;
  const sweep = s.sweep ? `; ${s.sweep.drafts} draft(s) and ${s.sweep.proposals} proposal(s) reconciled` : "";
  return `porchlight: ${s.event} on ${s.repository}: ${ran}, ${failed} failed${sweep}`;
}

/**
 * What a run prints for the workflow's log and annotations: an `::error::` per failed job, handler
 * and reconcile step, naming what failed in which repository; then one summary line. A run with any
 * error fails the step. The same, as Markdown, for the run's summary page.
 */
export const runReport = {
  error: (title: string, message: string) => annotation("error", message, { title }),
  warning: (title: string, message: string) => annotation("warning", message, { title }),

  lines(s: RunSummary): { text: string; failed: boolean } {
    const found = failures(s);
    const out = found.map((f) => annotation("error", f.message, { title: f.title }));
    out.push(`${headline(s)}${found.length > 0 ? "" : " — ok"}\n`);
    return { text: out.join(""), failed: found.length > 0 };
  },

  /** For `GITHUB_STEP_SUMMARY`: the headline, then each failure as a list item. */
  markdown(s: RunSummary): string {
    const found = failures(s);
    const items = found.map((f) => `- **${f.title}**: ${f.message.replace(/\s*\n\s*/g, " ")}\n`);
    return `${found.length > 0 ? "❌" : "✅"} ${headline(s)}\n\n${items.join("")}${items.length > 0 ? "\n" : ""}`;
  },
};
