import type { SweepResult } from "../jobs/reconcile.js";
import type { JobOutcome } from "../jobs/repo-queue.js";
import { maskSecrets } from "../ops/logger.js";
import { annotation } from "./workflow-commands.js";

export interface RunSummary {
  /** The event handled, or `reconcile`. */
  event: string;
  repository: string;
  /** What failed before a job was queued (a handler's error, an unreadable payload). */
  problems: string[];
  outcomes: readonly JobOutcome[];
  sweep: SweepResult | null;
}

const errorText = (e: unknown) => maskSecrets(e instanceof Error ? e.message : String(e));

/**
 * What a run prints for the workflow's log and annotations: an `::error::` per failed job, handler
 * and reconcile step, naming what failed in which repository; then one summary line. A run with any
 * error fails the step.
 */
export const runReport = {
  error: (title: string, message: string) => annotation("error", message, { title }),
  warning: (title: string, message: string) => annotation("warning", message, { title }),

  lines(s: RunSummary): { text: string; failed: boolean } {
    const out: string[] = [];
    for (const p of s.problems)
      out.push(annotation("error", `${s.repository}: ${p}`, { title: `porchlight ${s.event}` }));
    for (const o of s.outcomes.filter((x) => !x.ok)) {
      const [kind = "job", ...key] = o.key.split(":");
      out.push(
        annotation("error", `${o.repo}: the ${kind} job (${key.join(":")}) failed: ${errorText(o.error)}`, {
          title: `porchlight ${kind} failed`,
        }),
      );
    }
    for (const f of s.sweep?.failures ?? [])
      out.push(
        annotation("error", `${s.repository}: reconciling ${f.what} failed: ${maskSecrets(f.error)}`, {
          title: "porchlight reconcile",
        }),
      );
    const failed = out.length > 0;
    const kinds = [...new Set(s.outcomes.map((o) => o.key.split(":")[0]))];
    const ran = `${s.outcomes.length} job(s) run${kinds.length > 0 ? ` (${kinds.join(", ")})` : ""}`;
    const sweep = s.sweep
      ? `; ${s.sweep.drafts} draft(s) and ${s.sweep.proposals} proposal(s) reconciled`
      : "";
    out.push(
      `porchlight: ${s.event} on ${s.repository}: ${ran}, ${s.outcomes.filter((o) => !o.ok).length} failed${sweep}${failed ? "" : " — ok"}\n`,
    );
    return { text: out.join(""), failed };
  },
};
