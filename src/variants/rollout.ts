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

type Targeted = Extract<FanoutAction, { kind: "clone" | "update" }>;

/**
 * Gates the plan: per upstream package, step after step, a step's pull requests open only once every
 * downstream of the step before is at its target with its default branch's checks passed, the soak time
 * (`minimumReleaseAge`) has run since (the first step: since the revision was published), the rollout is
 * neither held, stopped, frozen nor outside its schedule, and within `maxConcurrent`, `prConcurrentLimit`
 * and `prHourlyLimit`. A failing check on a step's pull request or default branch stops the rollout there.
 * Variants no step selects are not part of it: their actions pass unchanged.
 */
export function planRollout(input: RolloutInput): RolloutPlan {
  const { rollout, now } = input;
  const actions = [...input.actions];
  const indexOf = new Map(actions.map((a, i) => [a.variant, i]));
  const groups = new Map<string, { upstream: PackageRef; steps: PackageVariant[][] }>();
  for (const v of input.variants) {
    const step = stepOf(rollout, v);
    // An image upstream has no published revisions to wave through: its variants fan out as before.
    const up = v.spec.upstream;
    if (step === undefined || !indexOf.has(v.metadata.name) || isSourceUpstream(up)) continue;
    const key = `${up.repo}/${up.package}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        upstream: { repo: up.repo, package: up.package },
        steps: rollout.steps.map(() => []),
      };
      groups.set(key, g);
    }
    g.steps[step]?.push(v);
  }
  const closed = closedNow(rollout, input.controls, now);
  const openPulls = { ...input.openPulls };
  let hourly = input.openedLastHour;
  const automerge = new Set<string>();
  const soakChecks = new Map<string, Date | null>();
  const pendingCheck = rollout.soak === "pending-check";
  const rollouts: RolloutStatus[] = [];
  let stop = false;
  const hold = (variant: string, reason: string) => {
    const i = indexOf.get(variant) as number;
    const a = actions[i] as FanoutAction;
    if (a.kind !== "clone" && a.kind !== "update") return;
    actions[i] = {
      kind: "skip",
      why: "rollout",
      variant,
      downstream: a.downstream,
      ...(a.kind === "update" ? { deployed: a.from } : {}),
      target: a.to,
      ...(a.pullRequest ? { pullRequest: a.pullRequest } : {}),
      reason,
    };
  };

  for (const [, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const status: RolloutStatus = { upstream: group.upstream, steps: [], complete: true };
    // Until which step pull requests may open, and since when the step before passed.
    let blocked: string | undefined;
    let passedAt: Date | undefined;
    rollout.steps.forEach((step, s) => {
      const variants = group.steps[s] ?? [];
      const members = variants.map((v) =>
        member(
          v,
          actions[indexOf.get(v.metadata.name) as number] as FanoutAction,
          input.facts[v.metadata.name] ?? {},
        ),
      );
      const failed = members.find((m) => m.state === "failed");
      const settled = members.every((m) => m.state === "deployed" || m.state === "skipped");
      const stepStatus: RolloutStepStatus = {
        name: step.name,
        state: "rolling",
        why: "",
        automerge: step.automerge === true,
        members,
      };
      status.steps.push(stepStatus);
      if (!settled) status.complete = false;
      const pending = members.filter((m) => m.state === "opening");
      const release = () => {
        for (const m of pending) hold(m.variant, `${step.name}: ${stepStatus.why}`);
        for (const m of pending) m.state = "waiting";
      };
      if (failed) {
        stepStatus.state = "failed";
        stepStatus.why = `${failed.downstream.repo}/${failed.downstream.package}: ${failed.why}`;
        status.failed ??= { step: step.name, why: stepStatus.why };
        stop = true;
      }
      if (blocked !== undefined) {
        if (!failed) {
          stepStatus.state = "waiting";
          stepStatus.why = blocked;
        }
        release();
      } else if (input.controls.stopped || failed) {
        if (!failed) {
          stepStatus.state = "held";
          stepStatus.why = "the rollout stopped at a failed step; `/rollout resume` once it is fixed";
        }
        release();
      } else {
        const age = durationMs(step.minimumReleaseAge ?? rollout.minimumReleaseAge ?? "0");
        // Since the step before passed; the first step (or one after steps with no downstream of this
        // package): since the revision was published.
        const since = passedAt ?? firstPublished(members, actions, indexOf, input, group.upstream);
        const ready = since ? new Date(since.getTime() + age) : undefined;
        const soaking = age > 0 && (!ready || ready > now);
        const soakWhy = ready
          ? `soaking until ${ready.toISOString()} (minimumReleaseAge ${step.minimumReleaseAge ?? rollout.minimumReleaseAge})`
          : "waiting for the publish time of the revision";
        if (soaking && pending.length && (!pendingCheck || !ready)) {
          stepStatus.state = "soaking";
          stepStatus.why = soakWhy;
          release();
        } else if (closed && pending.length) {
          stepStatus.state = "held";
          stepStatus.why = closed;
          release();
        } else if (capacity(step, variants.length) === 0 && pending.length && !input.controls.resume) {
          stepStatus.state = "gated";
          stepStatus.why = "a manual gate (maxConcurrent 0): `/rollout resume` on this issue opens it";
          release();
        } else {
          let room =
            Math.max(capacity(step, variants.length), input.controls.resume ? 1 : 0) -
            members.filter((m) => m.state === "proposed").length;
          for (const m of pending) {
            const a = actions[indexOf.get(m.variant) as number] as Targeted;
            if (a.pullRequest) continue; // moving an open pull request opens nothing
            const repoOpen = openPulls[m.downstream.repo] ?? 0;
            const why =
              room <= 0
                ? `maxConcurrent: ${step.maxConcurrent} pull requests of ${step.name} open at once`
                : rollout.prConcurrentLimit && repoOpen >= rollout.prConcurrentLimit
                  ? `prConcurrentLimit: ${rollout.prConcurrentLimit} open in ${m.downstream.repo}`
                  : rollout.prHourlyLimit && hourly >= rollout.prHourlyLimit
                    ? `prHourlyLimit: ${rollout.prHourlyLimit} opened in the last hour`
                    : undefined;
            if (why) {
              hold(m.variant, `${step.name}: held back by ${why}`);
              m.state = "limited";
              m.why = why;
              continue;
            }
            room--;
            hourly++;
            openPulls[m.downstream.repo] = repoOpen + 1;
          }
          if (pendingCheck)
            for (const m of members)
              if (m.state === "opening" || m.state === "proposed")
                soakChecks.set(m.variant, soaking && ready ? ready : null);
          if (soaking && !settled) {
            // `pending-check`: the pull requests are open, their check pending until the soak is over.
            stepStatus.state = "soaking";
            stepStatus.why = soakWhy;
          } else {
            stepStatus.state = settled ? "done" : "rolling";
            if (step.automerge && !closed)
              for (const m of members) if (m.state === "proposed") automerge.add(m.variant);
          }
        }
      }
      if (!settled && blocked === undefined) {
        blocked = failed
          ? `step ${step.name} failed`
          : `step ${step.name} is not done: every pull request merged, checks passed on the default branch`;
      }
      if (settled && stepStatus.state !== "failed" && blocked === undefined) {
        stepStatus.state = "done";
        stepStatus.why = "";
        const times = members.map((m) => input.facts[m.variant]?.baseAt?.getTime() ?? 0);
        const latest = Math.max(0, ...times);
        passedAt = latest > 0 ? new Date(latest) : passedAt;
      }
    });
    rollouts.push(status);
  }
  return { actions, rollouts, automerge, soakChecks, stop, complete: rollouts.every((r) => r.complete) };
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
  actions: readonly FanoutAction[],
  indexOf: ReadonlyMap<string, number>,
  input: RolloutInput,
  upstream: PackageRef,
): Date | undefined {
  let latest: Date | undefined;
  for (const m of members) {
    const a = actions[indexOf.get(m.variant) as number];
    // What it proposes: the revision to open a pull request for, or the one its open pull request proposes.
    const revision =
      a?.kind === "clone" || a?.kind === "update"
        ? a.to
        : m.pullRequest && a && "target" in a
          ? a.target
          : undefined;
    if (!revision) continue;
    const at = input.publishedAt(upstream, revision);
    if (!at) return undefined;
    if (!latest || at > latest) latest = at;
  }
  return latest;
}
