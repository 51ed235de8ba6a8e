import type { Rollout } from "../../config/rollout-schema.js";
import type { CheckRunState, RepoPort } from "../../github/port.js";
import {
  type ChecksState,
  DASHBOARD_MARKER,
  type FanoutAction,
  type PackageRef,
  planRollout,
  type RolloutControls,
  type RolloutFacts,
  type RolloutPlan,
  stepOf,
} from "../../variants/index.js";
import { DASHBOARD_LABEL } from "./context.js";
import type { FanoutState } from "./read-state.js";
import type { RepoSnapshot } from "./snapshot.js";

/** Labels of the dashboard issue that carry the rollout's control state (facts, not memory). */
export const ROLLOUT_LABELS = {
  /** `/rollout hold`: nothing opens or automerges until `/rollout resume`. */
  hold: "porchlight/rollout-hold",
  /** `/rollout resume`: manual gates open and schedules are overridden until the rollout is complete. */
  resume: "porchlight/rollout-resume",
  /** The bot stopped the rollout at a failed step; `/rollout resume` takes it away. */
  stopped: "porchlight/rollout-stopped",
} as const;

const PASSING = new Set(["success", "neutral", "skipped"]);
const HOUR_MS = 3_600_000;

/** The state of the check runs on one commit: failed (naming them), pending, passed, or none ran. */
export function checksState(runs: readonly CheckRunState[]): ChecksState {
  if (runs.length === 0) return { state: "none" };
  const failing = runs.filter((r) => r.status === "completed" && !PASSING.has(r.conclusion ?? ""));
  if (failing.length) return { state: "failed", failing: failing.map((r) => r.name).sort() };
  if (runs.some((r) => r.status !== "completed")) return { state: "pending" };
  return { state: "passed" };
}

/**
 * Reads what the rollout decides from and gates the plan: the dashboard issue's labels (hold, resume,
 * stopped), per variant of a step the check runs on its downstream's default branch and on its open pull
 * request and the default branch's commit date, the catalog's publish times, and the open fan-out pull
 * requests per repository. Reads only.
 */
export async function gateByRollout(
  rollout: Rollout,
  state: FanoutState,
  actions: readonly FanoutAction[],
  now: Date,
): Promise<RolloutPlan & { dashboard?: { number: number; labels: string[] } }> {
  const dashboard = await state.management.port.findIssue({
    label: DASHBOARD_LABEL,
    marker: DASHBOARD_MARKER,
  });
  const labels = new Set(dashboard?.labels ?? []);
  const controls: RolloutControls = {
    hold: labels.has(ROLLOUT_LABELS.hold),
    resume: labels.has(ROLLOUT_LABELS.resume),
    stopped: labels.has(ROLLOUT_LABELS.stopped),
  };
  const variants = state.variants.map((lv) => lv.variant);
  const byName = new Map(actions.map((a) => [a.variant, a]));
  const facts: Record<string, RolloutFacts> = {};
  const snapOf = (repo: string) => state.snapshots.get(repo) as RepoSnapshot;
  const published = new Map<string, Date>();
  let openedLastHour = 0;
  await Promise.all(
    variants.map(async (v) => {
      if (stepOf(rollout, v) === undefined) return;
      const a = byName.get(v.metadata.name);
      const snap = snapOf(v.spec.downstream.repo);
      const f: RolloutFacts = {};
      const pr = state.pulls.get(v.metadata.name);
      if (pr) {
        f.pull = checksState(await snap.port.listCheckRuns(pr.headSha));
        if (pr.createdAt && now.getTime() - Date.parse(pr.createdAt) < HOUR_MS) openedLastHour++;
      }
      if (a?.kind === "nothing" && !a.pullRequest && snap.baseSha) {
        f.base = checksState(await snap.port.listCheckRuns(snap.baseSha));
        f.baseAt = await snap.port.commitTime(snap.baseSha);
        // An update merged within the hour was opened within it at most: counted (conservatively).
        if (now.getTime() - f.baseAt.getTime() < HOUR_MS && a.deployed === a.target) openedLastHour++;
      }
      if (a?.kind === "clone" || a?.kind === "update") {
        const key = `${a.upstream.repo}/${a.upstream.package}@${a.to}`;
        if (!published.has(key)) published.set(key, await publishTime(state, a.upstream, a.to, a.toCommit));
      }
      facts[v.metadata.name] = f;
    }),
  );
  const openPulls: Record<string, number> = {};
  for (const [name, snap] of state.snapshots) openPulls[name] = snap.pulls.length;
  const plan = planRollout({
    rollout,
    variants,
    actions,
    facts,
    controls,
    now,
    publishedAt: (up, revision) => published.get(`${up.repo}/${up.package}@${revision}`),
    openPulls,
    openedLastHour,
  });
  return { ...plan, ...(dashboard ? { dashboard } : {}) };
}

/** When a revision was published: the catalog's time, else its tag's commit date. */
async function publishTime(
  state: FanoutState,
  up: PackageRef,
  revision: string,
  commit: string,
): Promise<Date> {
  const catalog = state.upstreamRepos.get(up.repo)?.catalog.catalog;
  const time = catalog?.packages
    .find((p) => p.name === up.package)
    ?.revisions.find((r) => r.revision === revision)?.time;
  if (time) return new Date(time);
  return (state.snapshots.get(up.repo) as RepoSnapshot).port.commitTime(commit);
}

/**
 * The rollout's record on the dashboard issue: `porchlight/rollout-stopped` while a step has failed (it
 * stays until `/rollout resume`), and `porchlight/rollout-resume` taken away once every variant is at its
 * target. Only changes are written.
 */
export async function recordRollout(
  port: RepoPort,
  issue: { number: number; labels: readonly string[] },
  plan: Pick<RolloutPlan, "stop" | "complete">,
): Promise<void> {
  if (plan.stop && !issue.labels.includes(ROLLOUT_LABELS.stopped))
    await port.addLabels(issue.number, [ROLLOUT_LABELS.stopped]);
  if (plan.complete && issue.labels.includes(ROLLOUT_LABELS.resume))
    await port.removeLabel(issue.number, ROLLOUT_LABELS.resume);
}
