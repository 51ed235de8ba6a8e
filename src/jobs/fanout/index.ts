import { GitHubError } from "../../github/errors.js";
import type { FileTree } from "../../kpt/tree.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import {
  type FanoutAction,
  type FanoutPlan,
  formatProblem,
  planFanout,
  type RolloutStatus,
  type VariantProblem,
} from "../../variants/index.js";
import { type FanoutContext, FanoutStepError } from "./context.js";
import { writeDashboard } from "./dashboard.js";
import { readDeclined } from "./declined.js";
import { reportDefaultBranchCheck } from "./default-branch-check.js";
import { execute } from "./execute.js";
import { releaseFinalizers } from "./finalize.js";
import { mapLimit } from "./limit.js";
import { type FanoutState, readFanoutState } from "./read-state.js";
import { gateByRollout, recordRollout, reportSoakChecks } from "./rollout.js";

export type { FanoutContext } from "./context.js";

/** Downstream repositories worked on at once. */
const EXECUTE_CONCURRENCY = 4;

export interface FanoutReport {
  management: string;
  /** What each variant's step did, as the dashboard shows it. */
  actions: FanoutAction[];
  /** Pull requests opened or edited, by `repo#number`. */
  pullRequests: { repo: string; number: number; action: "created" | "updated" | "unchanged" | "closed" }[];
  /** Pull requests merged and tagged now (automerge, auto-publish), by `repo#number` and tag. */
  published: { repo: string; number: number; tag: string }[];
  failures: { variant: string; error: string }[];
  /**
   * What the variants' files or plans got wrong (a bad field, an upstream not published, a target no
   * selector finds): each variant left as it was for it, as the dashboard lists them.
   */
  problems: { variant: string; error: string }[];
  dashboard?: { number: number; action: "created" | "updated" | "unchanged" };
  /** PackageVariants being deleted whose finalizer this run removed (finalize.ts). */
  released?: string[];
}

/**
 * The fan-out reconciler for one management repository: read the state (variant files, every
 * repository's refs and base files, open fan-out pull requests, upstream tags and catalog) → planFanout
 * (again with the closed pull requests of the variants it would open one for, see readDeclined) →
 * execute each variant's one step (clone, update, removal, auto-publish; repositories side by side) →
 * the dashboard, and the default branch's `porchlight/variants` check where its variant files have problems. Level-triggered: run again, or after a crash, it finishes what is left; with nothing to
 * do it writes nothing. A failing variant is reported and the others go on; a rate limit that outlasted
 * the client's retries stops the run (the next one resumes).
 */
export async function reconcileFanout(ctx: FanoutContext, management: string): Promise<FanoutReport> {
  const state = await readFanoutState(ctx, management);
  let plan = await planWithDeclined(state);
  // A progressive rollout lets the steps through wave after wave (docs/fanout.md#progressive-rollout).
  const now = ctx.now?.() ?? new Date();
  const gate = ctx.rollout ? await gateByRollout(ctx.rollout, state, plan.actions, now) : undefined;
  if (gate) plan = { actions: gate.actions };
  // `soak: pending-check`: the open pull requests' check first (an automerge below looks at it), the
  // ones this run opens after.
  const soaked = gate?.soakChecks.size
    ? await reportSoakChecks(state, plan.actions, gate.soakChecks)
    : new Set();
  const report: FanoutReport = {
    management,
    actions: [],
    pullRequests: [],
    published: [],
    failures: [],
    problems: [],
  };
  const problems: VariantProblem[] = [...state.problems];
  const done = await executeActions(ctx, state, plan.actions, report, { gate, now });
  report.actions.push(...done);
  if (state.terminating.length > 0)
    report.released = await releaseFinalizers(ctx, state, done, report.failures);
  report.problems.push(...variantProblems(problems, done, report.failures));

  if (gate?.soakChecks.size)
    await reportSoakChecks(state, done, new Map([...gate.soakChecks].filter(([v]) => !soaked.has(v))));
  const declared =
    state.management.tree.size > 0 && state.variants.length + problems.length + state.managed.length > 0;
  if (declared) report.dashboard = await writeFanoutDashboard(state, report.actions, problems, gate);
  const issue =
    gate?.dashboard ?? (report.dashboard ? { number: report.dashboard.number, labels: [] } : undefined);
  if (gate && issue) await recordRollout(state.management.port, issue, gate);
  // a problem in variant files pushed straight to the default branch shows on that commit too
  if (declared)
    await reportDefaultBranchCheck(state).catch((err: unknown) => {
      if (err instanceof GitHubError && err.kind === "rate-limited") throw err;
      // the dashboard says the same; the next run reports the check again
      ctx.log.warn({ err, management }, "the default branch's porchlight/variants check was not reported");
    });
  ctx.log.info(
    {
      management,
      variants: state.variants.length,
      pullRequests: report.pullRequests.length,
      failures: report.failures.length,
    },
    "fan-out reconciled",
  );
  return report;
}

/** What a progressive rollout lets through this run, and what it says of each step. */
type RolloutGate = Awaited<ReturnType<typeof gateByRollout>>;

/** The plan; planned again when a person closed a pull request it would open (readDeclined). */
async function planWithDeclined(state: FanoutState): Promise<FanoutPlan> {
  const planNow = () =>
    planFanout({
      variants: state.variants,
      problems: state.problems,
      upstream: state.upstream,
      sources: state.sources,
      downstream: state.downstream,
      managed: state.managed,
    });
  const plan = planNow();
  // A new pull request is planned: first look whether a person closed one for that target.
  const declined = await readDeclined(state, plan);
  if (declined.size === 0) return plan;
  for (const [variant, d] of declined)
    state.downstream[variant] = { exists: false, ...state.downstream[variant], declined: d };
  return planNow();
}

/**
 * Each action's step, executed: what it did, in the plan's order. A failing step becomes a `skip` with
 * its error (and a failure in the report); a rate limit stops the run, thrown once the steps under way end.
 */
async function executeActions(
  ctx: FanoutContext,
  state: FanoutState,
  actions: readonly FanoutAction[],
  report: FanoutReport,
  rollout: { gate: RolloutGate | undefined; now: Date },
): Promise<FanoutAction[]> {
  const upstreamCache = new Map<string, Promise<FileTree>>();
  // Downstream repositories are worked on side by side (git pushes overlap; the client still paces and
  // serializes the installation's REST writes); one repository's steps run one after another.
  const byRepo = new Map<string, number[]>();
  actions.forEach((a, i) => {
    const key = "downstream" in a && a.downstream ? a.downstream.repo : "";
    byRepo.set(key, [...(byRepo.get(key) ?? []), i]);
  });
  const done: FanoutAction[] = new Array(actions.length);
  let stop: unknown;
  await mapLimit([...byRepo.values()], EXECUTE_CONCURRENCY, async (indexes) => {
    for (const i of indexes) {
      if (stop) return;
      const action = actions[i] as FanoutAction;
      try {
        done[i] = await execute(ctx, state, action, report, upstreamCache, {
          automerge: rollout.gate?.automerge.has(action.variant) ?? false,
          now: rollout.now,
        });
      } catch (e) {
        if (e instanceof GitHubError && e.kind === "rate-limited") {
          stop = e;
          return;
        }
        const error = e instanceof Error ? e.message : String(e);
        if (!(e instanceof FanoutStepError))
          ctx.log.warn({ err: e, variant: action.variant }, "fan-out step failed");
        report.failures.push({ variant: action.variant, error });
        done[i] = failedStep(action, error);
      }
    }
  });
  if (stop) throw stop;
  return done;
}

/**
 * A step that failed, as the dashboard shows it: a problem, with the revision it was to bring (a clone's
 * or an update's target) and the one the downstream carries, so the row (and the variant's status in
 * Porch's API, which reads it) tells a step fan-out could not do from a variant it could not plan.
 */
function failedStep(action: FanoutAction, error: string): FanoutAction {
  const change = action.kind === "clone" || action.kind === "update" ? action : undefined;
  return {
    kind: "skip",
    why: "problem",
    variant: action.variant,
    ...("downstream" in action && action.downstream ? { downstream: action.downstream } : {}),
    ...(change?.kind === "update" ? { deployed: change.from } : {}),
    ...(change ? { target: change.to } : {}),
    reason: error,
  };
}

/** The management repository's dashboard issue, written with what this run did. */
function writeFanoutDashboard(
  state: FanoutState,
  actions: readonly FanoutAction[],
  problems: VariantProblem[],
  gate: RolloutGate | undefined,
): ReturnType<typeof writeDashboard> {
  const owners = new Map([...state.snapshots].map(([name, s]) => [name, s.repository.fullName]));
  return writeDashboard(state.management.port, {
    variants: state.declared,
    actions,
    problems,
    owners,
    ...(gate ? { rollouts: settleRollouts(gate.rollouts, actions) } : {}),
    elsewhere: state.downstreamsElsewhere,
    published: (repo, pkg) => {
      const tags = state.snapshots.get(repo)?.tags;
      const latest = tags ? latestRevision(pkg, tags.keys()) : 0;
      return latest ? `v${latest}` : undefined;
    },
  });
}

/** The highest N of the tags `<pkg>/v<N>`, or 0. */
function latestRevision(pkg: string, tags: Iterable<string>): number {
  let latest = 0;
  for (const tag of tags) {
    const parsed = parseRevisionTag(tag);
    if (parsed.ok && parsed.value.package === pkg) latest = Math.max(latest, parsed.value.revision);
  }
  return latest;
}

/** The rollout as this run left it: a step's pull request opened (or merged) now shows so. */
function settleRollouts(rollouts: RolloutStatus[], done: readonly FanoutAction[]): RolloutStatus[] {
  const byVariant = new Map(done.map((a) => [a.variant, a]));
  return rollouts.map((r) => ({
    ...r,
    steps: r.steps.map((s) => ({
      ...s,
      members: s.members.map((m) => {
        const a = byVariant.get(m.variant);
        if (m.state !== "opening" && m.state !== "proposed") return m;
        if (a?.kind === "nothing" && a.pullRequest)
          return { ...m, state: "proposed" as const, pullRequest: a.pullRequest };
        if (a?.kind === "nothing" && a.deployed && a.deployed === a.target) {
          const { pullRequest: _p, ...rest } = m;
          return { ...rest, state: "verifying" as const, why: "merged; checks on the default branch next" };
        }
        return m;
      }),
    })),
  }));
}

/**
 * One entry per variant left as it was for a problem: its file's first problem (with where), else the
 * reason its plan skipped it. A step that failed is a failure (report.failures), not a problem.
 */
function variantProblems(
  problems: readonly VariantProblem[],
  done: readonly FanoutAction[],
  failures: readonly { variant: string }[],
): { variant: string; error: string }[] {
  const byVariant = new Map<string, string>();
  for (const p of problems) {
    const variant = p.variant ?? p.file;
    if (!byVariant.has(variant)) byVariant.set(variant, formatProblem(p));
  }
  for (const a of done)
    if (
      a.kind === "skip" &&
      a.why === "problem" &&
      !byVariant.has(a.variant) &&
      !failures.some((f) => f.variant === a.variant)
    )
      byVariant.set(a.variant, a.reason);
  return [...byVariant].map(([variant, error]) => ({ variant, error }));
}
