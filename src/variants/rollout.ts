import { cronMatches, parseCron } from "../config/cron.js";
import { durationMs, type Rollout, type RolloutStep, type Window } from "../config/rollout-schema.js";
import type { FanoutAction, PackageRef } from "./plan-types.js";
import { isSourceUpstream, type PackageVariant } from "./schema.js";

/**
 * Fan-out as a progressive rollout (docs/fanout.md#progressive-rollout): the plan's steps that open or
 * move a pull request are let through wave after wave. Pure and level-triggered: everything it decides
 * from is a fact the executing layer read from GitHub and git (pull requests, check runs on the
 * downstreams' default branches, commit dates, the catalog's publish times, labels of the dashboard
 * issue), so a restarted bot decides the same.
 */

/** The state of a set of check runs on one commit. */
export type ChecksState = { state: "passed" | "pending" | "none" } | { state: "failed"; failing: string[] };

/** What the executing layer read for one variant of a rollout. */
export interface RolloutFacts {
  /** Check runs on the head of the downstream's default branch. */
  base?: ChecksState;
  /** When that head was committed (the merge of the last update). */
  baseAt?: Date;
  /** Check runs on the head of the variant's open pull request. */
  pull?: ChecksState;
}

/** Labels of the dashboard issue: a person's say, and the stop the bot recorded. */
export interface RolloutControls {
  /** `/rollout hold`: nothing opens or automerges. */
  hold: boolean;
  /** `/rollout resume`: manual gates open, schedules and freezes are overridden, until the rollout is done. */
  resume: boolean;
  /** A step failed and the bot stopped the rollout; `/rollout resume` takes the stop away. */
  stopped: boolean;
}

export interface RolloutInput {
  rollout: Rollout;
  variants: readonly PackageVariant[];
  /** planFanout's actions. */
  actions: readonly FanoutAction[];
  facts: Readonly<Record<string, RolloutFacts>>;
  controls: RolloutControls;
  now: Date;
  /** When `revision` of the upstream package was published (the catalog's time). */
  publishedAt(upstream: PackageRef, revision: string): Date | undefined;
  /** Open fan-out pull requests per downstream repository. */
  openPulls: Readonly<Record<string, number>>;
  /** Fan-out pull requests opened in the rollout's downstream repositories in the hour before `now` (open or closed since). */
  openedLastHour: number;
}

/** Where one downstream of a step is. */
export type MemberState =
  | "deployed"
  | "verifying"
  | "proposed"
  | "opening"
  | "waiting"
  | "limited"
  | "failed"
  | "blocked"
  | "skipped";

export interface RolloutMember {
  variant: string;
  downstream: PackageRef;
  state: MemberState;
  pullRequest?: number;
  /** Why (failed, blocked, limited, waiting). */
  why?: string;
}

export type StepState = "done" | "rolling" | "soaking" | "gated" | "waiting" | "failed" | "held";

interface RolloutStepStatus {
  name: string;
  state: StepState;
  why: string;
  automerge: boolean;
  members: RolloutMember[];
}

/** One upstream package's rollout. */
export interface RolloutStatus {
  upstream: PackageRef;
  steps: RolloutStepStatus[];
  /** The first failed step and why, when the rollout stopped. */
  failed?: { step: string; why: string };
  /** Every variant of every step is at its target. */
  complete: boolean;
}

export interface RolloutPlan {
  /** The fan-out actions, those the rollout holds back turned into `skip` (why "rollout"). */
  actions: FanoutAction[];
  rollouts: RolloutStatus[];
  /** Variants whose open pull request may be automerged now. */
  automerge: Set<string>;
  /**
   * `soak: pending-check`: per variant of a step that opened, the `porchlight/rollout` check its pull
   * request should carry — pending until the date, or passed (null).
   */
  soakChecks: Map<string, Date | null>;
  /** A step failed (the bot records the stop on the dashboard issue). */
  stop: boolean;
  /** Every rollout is complete (a `/rollout resume` has nothing left to override). */
  complete: boolean;
}

/** The step a variant belongs to: the first whose names or labels select it; undefined for none. */
export function stepOf(rollout: Rollout, variant: PackageVariant): number | undefined {
  const i = rollout.steps.findIndex((s) => selects(s, variant));
  return i < 0 ? undefined : i;
}

function selects(step: RolloutStep, variant: PackageVariant): boolean {
  const name = variant.metadata.name;
  if (step.variants && !step.variants.some((g) => globMatch(g, name))) return false;
  const labels = variant.metadata.labels ?? {};
  if (step.labels && !Object.entries(step.labels).every(([k, v]) => labels[k] === v)) return false;
  return true;
}

function globMatch(glob: string, name: string): boolean {
  const re = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
  return re.test(name);
}

/** How many of `size` variants may have a pull request open at once; 0: a manual gate. */
function capacity(step: RolloutStep, size: number): number {
  const m = step.maxConcurrent ?? "100%";
  if (typeof m === "number") return m;
  return Math.max(1, Math.ceil((size * Number(m.slice(0, -1))) / 100));
}

/** Whether `at` is in any of the windows. */
function inWindow(windows: readonly Window[], at: Date): boolean {
  return windows.some((w) =>
    (Array.isArray(w.cron) ? w.cron : [w.cron]).some((c) => {
      const parsed = parseCron(c);
      return parsed.ok && cronMatches(parsed.cron, at, w.timezone ?? "UTC");
    }),
  );
}

/** Why nothing may open or merge now (hold, freeze, outside the schedule), or undefined. */
function closedNow(rollout: Rollout, controls: RolloutControls, now: Date): string | undefined {
  if (controls.hold) return "held by `/rollout hold`; `/rollout resume` lets it go on";
  if (controls.resume) return undefined;
  if (rollout.freeze && inWindow(rollout.freeze, now))
    return "a freeze window is on; it ends by itself, or `/rollout resume` overrides it";
  if (rollout.schedule && !inWindow(rollout.schedule, now))
    return "outside the schedule; it goes on in the next window, or `/rollout resume` overrides it";
  return undefined;
}

/**
 * One planning pass: the actions as the rollout gates them, and what every upstream's steps share — the
 * pull requests open per repository, those opened in the last hour, the automerge and soak-check lists,
 * whether a step failed.
 */
class RolloutRun {
  readonly actions: FanoutAction[];
  private readonly indexOf: Map<string, number>;
  readonly openPulls: Record<string, number>;
  hourly: number;
  readonly automerge = new Set<string>();
  readonly soakChecks = new Map<string, Date | null>();
  stop = false;
  /** Why nothing may open or merge now (hold, freeze, outside the schedule), or undefined. */
  readonly closed: string | undefined;

  constructor(readonly input: RolloutInput) {
    this.actions = [...input.actions];
    this.indexOf = new Map(this.actions.map((a, i) => [a.variant, i]));
    this.openPulls = { ...input.openPulls };
    this.hourly = input.openedLastHour;
    this.closed = closedNow(input.rollout, input.controls, input.now);
  }

  /** The variant's action as gated so far; undefined for a variant the plan has none for. */
  actionOf(variant: string): FanoutAction | undefined {
    const i = this.indexOf.get(variant);
    return i === undefined ? undefined : this.actions[i];
  }

  /** Holds back the clone or update of `variant` (anything else stays as it is), saying why. */
  hold(variant: string, reason: string): void {
    const i = this.indexOf.get(variant);
    const a = i === undefined ? undefined : this.actions[i];
    if (i === undefined || !a || (a.kind !== "clone" && a.kind !== "update")) return;
    this.actions[i] = {
      kind: "skip",
      why: "rollout",
      variant,
      downstream: a.downstream,
      ...(a.kind === "update" ? { deployed: a.from } : {}),
      target: a.to,
      ...(a.pullRequest ? { pullRequest: a.pullRequest } : {}),
      reason,
    };
  }
}

/** The variants of one upstream package in the rollout, by step, each with its action. */
interface RolloutGroup {
  upstream: PackageRef;
  steps: { variant: PackageVariant; action: FanoutAction }[][];
}

/**
 * Gates the plan: per upstream package, step after step, a step's pull requests open only once every
 * downstream of the step before is at its target with its default branch's checks passed, the soak time
 * (`minimumReleaseAge`) has run since (the first step: since the revision was published), the rollout is
 * neither held, stopped, frozen nor outside its schedule, and within `maxConcurrent`, `prConcurrentLimit`
 * and `prHourlyLimit`. A failing check on a step's pull request or default branch stops the rollout there.
 * Variants no step selects are not part of it: their actions pass unchanged.
 */
export function planRollout(input: RolloutInput): RolloutPlan {
  const run = new RolloutRun(input);
  const rollouts = [...groupByUpstream(input, run)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, group]) => planGroup(run, group));
  return {
    actions: run.actions,
    rollouts,
    automerge: run.automerge,
    soakChecks: run.soakChecks,
    stop: run.stop,
    complete: rollouts.every((r) => r.complete),
  };
}

/** The rollout's variants with an action, by upstream package (`repo/package`), each in its step. */
function groupByUpstream(input: RolloutInput, run: RolloutRun): Map<string, RolloutGroup> {
  const { rollout } = input;
  const groups = new Map<string, RolloutGroup>();
  for (const variant of input.variants) {
    const step = stepOf(rollout, variant);
    const action = run.actionOf(variant.metadata.name);
    // An image upstream has no published revisions to wave through: its variants fan out as before.
    const up = variant.spec.upstream;
    if (step === undefined || !action || isSourceUpstream(up)) continue;
    const key = `${up.repo}/${up.package}`;
    let g = groups.get(key);
    if (!g) {
      g = { upstream: { repo: up.repo, package: up.package }, steps: rollout.steps.map(() => []) };
      groups.set(key, g);
    }
    g.steps[step]?.push({ variant, action });
  }
  return groups;
}

/** Where a group's walk through its steps is: until which step pull requests may open, and since when the step before passed. */
interface StepCursor {
  blocked: string | undefined;
  passedAt: Date | undefined;
}

/** One upstream package's rollout, step after step. */
function planGroup(run: RolloutRun, group: RolloutGroup): RolloutStatus {
  const status: RolloutStatus = { upstream: group.upstream, steps: [], complete: true };
  const cursor: StepCursor = { blocked: undefined, passedAt: undefined };
  run.input.rollout.steps.forEach((step, s) => {
    const entries = group.steps[s] ?? [];
    const members = entries.map(({ variant, action }) =>
      member(variant, action, run.input.facts[variant.metadata.name] ?? {}),
    );
    const stepStatus = planStep(run, group, step, entries.length, members, cursor);
    status.steps.push(stepStatus);
    if (!members.every((m) => m.state === "deployed" || m.state === "skipped")) status.complete = false;
    if (stepStatus.state === "failed") status.failed ??= { step: step.name, why: stepStatus.why };
  });
  return status;
}

/** One step of a group: its state, its members' actions held back or let through. */
function planStep(
  run: RolloutRun,
  group: RolloutGroup,
  step: RolloutStep,
  size: number,
  members: RolloutMember[],
  cursor: StepCursor,
): RolloutStepStatus {
  const failed = members.find((m) => m.state === "failed");
  const settled = members.every((m) => m.state === "deployed" || m.state === "skipped");
  const stepStatus: RolloutStepStatus = {
    name: step.name,
    state: "rolling",
    why: "",
    automerge: step.automerge === true,
    members,
  };
  const pending = members.filter((m) => m.state === "opening");
  const release = () => {
    for (const m of pending) run.hold(m.variant, `${step.name}: ${stepStatus.why}`);
    for (const m of pending) m.state = "waiting";
  };
  if (failed) {
    stepStatus.state = "failed";
    stepStatus.why = `${failed.downstream.repo}/${failed.downstream.package}: ${failed.why}`;
    run.stop = true;
  }
  if (cursor.blocked !== undefined) {
    if (!failed) {
      stepStatus.state = "waiting";
      stepStatus.why = cursor.blocked;
    }
    release();
  } else if (run.input.controls.stopped || failed) {
    if (!failed) {
      stepStatus.state = "held";
      stepStatus.why = "the rollout stopped at a failed step; `/rollout resume` once it is fixed";
    }
    release();
  } else {
    openStep(run, group, cursor, { step, size, members, pending, settled, status: stepStatus, release });
  }
  if (!settled && cursor.blocked === undefined) {
    cursor.blocked = failed
      ? `step ${step.name} failed`
      : `step ${step.name} is not done: every pull request merged, checks passed on the default branch`;
  }
  if (settled && stepStatus.state !== "failed" && cursor.blocked === undefined) {
    stepStatus.state = "done";
    stepStatus.why = "";
    const times = members.map((m) => run.input.facts[m.variant]?.baseAt?.getTime() ?? 0);
    const latest = Math.max(0, ...times);
    cursor.passedAt = latest > 0 ? new Date(latest) : cursor.passedAt;
  }
  return stepStatus;
}

/** A step being planned: its members (those pending: about to open), whether all are settled, its status. */
interface StepWork {
  step: RolloutStep;
  /** How many variants the step selects (maxConcurrent's percentages are of it). */
  size: number;
  members: RolloutMember[];
  pending: RolloutMember[];
  settled: boolean;
  status: RolloutStepStatus;
  /** Holds back every pending member, with the step's why. */
  release: () => void;
}

/**
 * A step the steps before let through: it soaks, is held (hold, freeze, schedule) or gated, or opens
 * what the limits allow; its members on automerge where the step says so.
 */
function openStep(run: RolloutRun, group: RolloutGroup, cursor: StepCursor, work: StepWork): void {
  const { rollout, controls, now } = run.input;
  const { step, size, members, pending, settled, status: stepStatus, release } = work;
  const age = durationMs(step.minimumReleaseAge ?? rollout.minimumReleaseAge ?? "0");
  // Since the step before passed; the first step (or one after steps with no downstream of this
  // package): since the revision was published.
  const since = cursor.passedAt ?? firstPublished(members, run, group.upstream);
  const ready = since ? new Date(since.getTime() + age) : undefined;
  const soaking = age > 0 && (!ready || ready > now);
  const soakWhy = ready
    ? `soaking until ${ready.toISOString()} (minimumReleaseAge ${step.minimumReleaseAge ?? rollout.minimumReleaseAge})`
    : "waiting for the publish time of the revision";
  const pendingCheck = rollout.soak === "pending-check";
  if (soaking && pending.length && (!pendingCheck || !ready)) {
    stepStatus.state = "soaking";
    stepStatus.why = soakWhy;
    release();
  } else if (run.closed && pending.length) {
    stepStatus.state = "held";
    stepStatus.why = run.closed;
    release();
  } else if (capacity(step, size) === 0 && pending.length && !controls.resume) {
    stepStatus.state = "gated";
    stepStatus.why = "a manual gate (maxConcurrent 0): `/rollout resume` on this issue opens it";
    release();
  } else {
    const room =
      Math.max(capacity(step, size), controls.resume ? 1 : 0) -
      members.filter((m) => m.state === "proposed").length;
    admit(run, step, pending, room);
    if (pendingCheck)
      for (const m of members)
        if (m.state === "opening" || m.state === "proposed")
          run.soakChecks.set(m.variant, soaking && ready ? ready : null);
    if (soaking && !settled) {
      // `pending-check`: the pull requests are open, their check pending until the soak is over.
      stepStatus.state = "soaking";
      stepStatus.why = soakWhy;
    } else {
      stepStatus.state = settled ? "done" : "rolling";
      if (step.automerge && !run.closed)
        for (const m of members) if (m.state === "proposed") run.automerge.add(m.variant);
    }
  }
}

/**
 * Lets the step's pending pull requests open while `room` (maxConcurrent), `prConcurrentLimit` and
 * `prHourlyLimit` allow; the others are held back, naming the limit.
 */
function admit(run: RolloutRun, step: RolloutStep, pending: readonly RolloutMember[], room: number): void {
  const { rollout } = run.input;
  let left = room;
  for (const m of pending) {
    const a = run.actionOf(m.variant);
    if (a && "pullRequest" in a && a.pullRequest) continue; // moving an open pull request opens nothing
    const repoOpen = run.openPulls[m.downstream.repo] ?? 0;
    const why =
      left <= 0
        ? `maxConcurrent: ${step.maxConcurrent} pull requests of ${step.name} open at once`
        : rollout.prConcurrentLimit && repoOpen >= rollout.prConcurrentLimit
          ? `prConcurrentLimit: ${rollout.prConcurrentLimit} open in ${m.downstream.repo}`
          : rollout.prHourlyLimit && run.hourly >= rollout.prHourlyLimit
            ? `prHourlyLimit: ${rollout.prHourlyLimit} opened in the last hour`
            : undefined;
    if (why) {
      run.hold(m.variant, `${step.name}: held back by ${why}`);
      m.state = "limited";
      m.why = why;
      continue;
    }
    left--;
    run.hourly++;
    run.openPulls[m.downstream.repo] = repoOpen + 1;
  }
}

function member(v: PackageVariant, a: FanoutAction, facts: RolloutFacts): RolloutMember {
  const base = { variant: v.metadata.name, downstream: v.spec.downstream };
  const pr = "pullRequest" in a ? a.pullRequest : undefined;
  const withPr = pr ? { pullRequest: pr } : {};
  if (facts.pull?.state === "failed" && pr)
    return {
      ...base,
      ...withPr,
      state: "failed",
      why: `checks failed on #${pr}: ${facts.pull.failing.join(", ")}`,
    };
  switch (a.kind) {
    case "clone":
    case "update":
      return { ...base, ...withPr, state: "opening" };
    case "nothing":
      if (pr) return { ...base, ...withPr, state: "proposed" };
      if (facts.base?.state === "failed")
        return {
          ...base,
          state: "failed",
          why: `checks failed on the default branch: ${facts.base.failing.join(", ")}`,
        };
      if (facts.base?.state === "pending")
        return { ...base, state: "verifying", why: "checks on the default branch still running" };
      return { ...base, state: "deployed" };
    case "skip":
      if (a.why === "paused" || a.why === "declined")
        return { ...base, ...withPr, state: "skipped", why: a.reason };
      if (a.why === "rollout") return { ...base, ...withPr, state: "waiting", why: a.reason };
      return { ...base, state: "blocked", why: a.reason };
    default:
      return { ...base, state: "blocked", why: a.reason };
  }
}

/** The first step's clock: when the revision it proposes was published. */
function firstPublished(
  members: readonly RolloutMember[],
  run: RolloutRun,
  upstream: PackageRef,
): Date | undefined {
  let latest: Date | undefined;
  for (const m of members) {
    const a = run.actionOf(m.variant);
    // What it proposes: the revision to open a pull request for, or the one its open pull request proposes.
    const revision =
      a?.kind === "clone" || a?.kind === "update"
        ? a.to
        : m.pullRequest && a && "target" in a
          ? a.target
          : undefined;
    if (!revision) continue;
    const at = run.input.publishedAt(upstream, revision);
    if (!at) return undefined;
    if (!latest || at > latest) latest = at;
  }
  return latest;
}
