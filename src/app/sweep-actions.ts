import type { FanoutReport } from "../jobs/fanout/index.js";
import type { SweepResult } from "../jobs/reconcile.js";

/**
 * What a sweep job did, by kind, from what its task returned: each is something no event had done
 * (a missed webhook, a crash), so in a healthy run every count is zero. Kinds: `publish` (an
 * unfinished publish finished), `answer` (a request or command answered), `render` (a draft rendered),
 * `check` (a proposal checked), `catalog` (a revision recorded, or withdrawn: its tag gone), `pull-request` (a fan-out pull request
 * opened or updated), `merge` (one automerged or auto-published), `dashboard` (the dashboard written),
 * `failure` (a step that failed).
 */
export function sweepActions(task: string, outcome: unknown): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (kind: string, n: number | undefined) => {
    if (n) counts[kind] = (counts[kind] ?? 0) + n;
  };
  if (task === "reconcile" && outcome) {
    const r = outcome as SweepResult;
    add("publish", r.resumed?.length);
    add("answer", (r.answered ?? 0) + (r.commands ?? 0));
    add("render", r.rendered);
    add("check", r.checked);
    add("failure", r.failures.length);
  }
  if (task === "fanout-sweep" && outcome) {
    const r = outcome as { recorded: string[]; withdrawn?: string[]; fanout?: FanoutReport };
    add("catalog", r.recorded.length + (r.withdrawn?.length ?? 0));
    add("pull-request", r.fanout?.pullRequests.filter((p) => p.action !== "unchanged").length);
    add("merge", r.fanout?.published.length);
    add("dashboard", r.fanout?.dashboard && r.fanout.dashboard.action !== "unchanged" ? 1 : 0);
    add("failure", r.fanout?.failures.length);
  }
  return counts;
}
