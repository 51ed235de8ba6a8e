import type { Rollout } from "../../config/rollout-schema.js";
import type { CheckRunState, PullRequest, RepoChecks, RepoPulls } from "../../github/port.js";
import { passes } from "../../lifecycle/check-run.js";
import { VARIANT_PREFIX } from "../../lifecycle/variant-branch.js";
import {
  type ChecksState,
  type FanoutAction,
  isSourceUpstream,
  type PackageRef,
  planRollout,
  type RolloutControls,
  type RolloutFacts,
  type RolloutPlan,
  stepOf,
} from "../../variants/index.js";
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

const HOUR_MS = 3_600_000;

/** The state of the check runs on one commit: failed (naming them), pending, passed, or none ran. */
function checksState(runs: readonly CheckRunState[]): ChecksState {
  if (runs.length === 0) return { state: "none" };
  const failing = runs.filter((r) => r.status === "completed" && !passes(r.conclusion));
  if (failing.length) return { state: "failed", failing: failing.map((r) => r.name).sort() };
  if (runs.some((r) => r.status !== "completed")) return { state: "pending" };
  return { state: "passed" };
}

/**
 * The checks on a commit as the rollout reads them: its check runs and its commit statuses (CI that
 * reports statuses), the statuses read only when no run failed already.
 */
async function commitChecksState(port: RepoChecks, sha: string): Promise<ChecksState> {
  const runs = await port.listCheckRuns(sha);
  const ofRuns = checksState(runs);
  if (ofRuns.state === "failed") return ofRuns;
  return checksState([...runs, ...(await port.listCommitStatuses(sha))]);
}

/**
 * Reads what the rollout decides from and gates the plan: the dashboard issue's labels (hold, resume,
 * stopped), per variant of a step the check runs and commit statuses on its downstream's default branch
 * and on its open pull request and the default branch's commit date, the catalog's publish times, and the open fan-out pull
 * requests per repository. Reads only.
 */
export async function gateByRollout(
  rollout: Rollout,
  state: FanoutState,
  actions: readonly FanoutAction[],
  now: Date,
): Promise<RolloutPlan & { dashboard?: { number: number; labels: string[] } }> {
  // readFanoutState reads the dashboard issue of a run with a rollout (undefined: there is none yet).
  const dashboard = state.dashboard;
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
  const downstreams = new Set<string>();
  await Promise.all(
    variants.map(async (v) => {
      if (stepOf(rollout, v) === undefined) return;
      const a = byName.get(v.metadata.name);
      const snap = snapOf(v.spec.downstream.repo);
      downstreams.add(v.spec.downstream.repo);
      const f: RolloutFacts = {};
      const pr = state.pulls.get(v.metadata.name);
      if (pr) {
        f.pull = await commitChecksState(snap.port, pr.headSha);
      }
      if (a?.kind === "nothing" && !a.pullRequest && snap.baseSha) {
        f.base = await commitChecksState(snap.port, snap.baseSha);
        f.baseAt = await snap.port.commitTime(snap.baseSha);
      }
      const revision =
        a?.kind === "clone" || a?.kind === "update"
          ? a.to
          : a?.kind === "nothing" && a.pullRequest
            ? a.target
            : undefined;
      const upstream = v.spec.upstream;
      const up = isSourceUpstream(upstream) ? undefined : { repo: upstream.repo, package: upstream.package };
      const key = up && `${up.repo}/${up.package}@${revision}`;
      if (up && key && revision && !published.has(key)) {
        const at = await publishTime(state, up, revision);
        if (at) published.set(key, at);
      }
      facts[v.metadata.name] = f;
    }),
  );
  const openedLastHour = rollout.prHourlyLimit
    ? await countOpenedLastHour([...downstreams].map(snapOf), now)
    : 0;
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

/**
 * Fan-out pull requests opened in the hour before `now` in these downstream repositories, by their
 * creation time on GitHub: those still open and those closed or merged since (one listing of recently
 * closed pull requests per repository). A merge within the hour of a pull request opened earlier does
 * not count: it opened nothing in this hour.
 */
async function countOpenedLastHour(snaps: readonly RepoSnapshot[], now: Date): Promise<number> {
  const within = (pr: PullRequest) =>
    pr.headRef.startsWith(VARIANT_PREFIX) &&
    pr.createdAt !== undefined &&
    now.getTime() - Date.parse(pr.createdAt) < HOUR_MS;
  const counts = await Promise.all(
    snaps.map(async (snap) => {
      const closed = await snap.port.listRecentlyClosedPulls();
      const numbers = new Set([...snap.pulls, ...closed].filter(within).map((p) => p.number));
      return numbers.size;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** When a revision was published: the catalog's time, else its tag's commit date. */
async function publishTime(state: FanoutState, up: PackageRef, revision: string): Promise<Date | undefined> {
  const catalog = state.upstreamRepos.get(up.repo)?.catalog.catalog;
  const time = catalog?.packages
    .find((p) => p.name === up.package)
    ?.revisions.find((r) => r.revision === revision)?.time;
  if (time) return new Date(time);
  const commit = state.upstream[up.repo]?.[up.package]?.revisions.find(
    (r) => r.revision === revision,
  )?.commit;
  return commit ? (state.snapshots.get(up.repo) as RepoSnapshot).port.commitTime(commit) : undefined;
}

/**
 * The rollout's record on the dashboard issue: `porchlight/rollout-stopped` while a step has failed (it
 * stays until `/rollout resume`), and `porchlight/rollout-resume` taken away once every variant is at its
 * target. Only changes are written.
 */
export async function recordRollout(
  port: RepoPulls,
  issue: { number: number; labels: readonly string[] },
  plan: Pick<RolloutPlan, "stop" | "complete">,
): Promise<void> {
  if (plan.stop && !issue.labels.includes(ROLLOUT_LABELS.stopped))
    await port.addLabels(issue.number, [ROLLOUT_LABELS.stopped]);
  if (plan.complete && issue.labels.includes(ROLLOUT_LABELS.resume))
    await port.removeLabel(issue.number, ROLLOUT_LABELS.resume);
}

/** The check run a `soak: pending-check` rollout puts on its pull requests while they soak. */
const ROLLOUT_CHECK = "porchlight/rollout";

/**
 * `soak: pending-check`: each pull request of a soaking step carries `porchlight/rollout` pending until
 * the soak is over ("soaking until …", the date in its external id), then passed. Written only when it
 * differs from what the head carries, so a run with nothing new writes nothing.
 */
export async function reportSoakChecks(
  state: FanoutState,
  done: readonly FanoutAction[],
  soakChecks: ReadonlyMap<string, Date | null>,
): Promise<Set<string>> {
  const reported = new Set<string>();
  for (const [variant, until] of soakChecks) {
    const a = done.find((x) => x.variant === variant);
    if (a?.kind !== "nothing" || !a.pullRequest) continue;
    reported.add(variant);
    const port = (state.snapshots.get(a.downstream.repo) as RepoSnapshot).port;
    const pr = await port.getPull(a.pullRequest);
    const run = (await port.listCheckRuns(pr.headSha)).find((r) => r.name === ROLLOUT_CHECK);
    if (until) {
      const externalId = until.toISOString();
      if (run && run.status !== "completed" && run.externalId === externalId) continue;
      await port.upsertCheckRun({
        name: ROLLOUT_CHECK,
        headSha: pr.headSha,
        status: "in_progress",
        externalId,
        title: `Soaking until ${externalId}`,
        summary: `The rollout's minimumReleaseAge: this pull request may merge from ${externalId} on.`,
      });
    } else if (run && !(run.status === "completed" && run.conclusion === "success")) {
      await port.upsertCheckRun({
        name: ROLLOUT_CHECK,
        headSha: pr.headSha,
        status: "completed",
        conclusion: "success",
        title: "Soaked",
        summary: "The rollout's minimumReleaseAge is over.",
      });
    }
  }
  return reported;
}
