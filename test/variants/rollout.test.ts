import { describe, expect, it } from "vitest";
import type { Rollout } from "../../src/config/rollout-schema.js";
import {
  type FanoutAction,
  planRollout,
  type RolloutFacts,
  type RolloutInput,
} from "../../src/variants/index.js";
import { envVariant } from "../util/krm.js";

const variant = envVariant;
const VARIANTS = ["dev-1", "dev-2", "stg-1", "stg-2", "prod-1", "prod-2", "prod-3"].map((n) =>
  variant(n, n.split("-")[0] as string),
);
const ROLLOUT: Rollout = {
  steps: [
    { name: "dev", labels: { env: "dev" }, automerge: true },
    { name: "staging", labels: { env: "stg" }, minimumReleaseAge: "1h" },
    { name: "prod", labels: { env: "prod" }, maxConcurrent: 2 },
  ],
};
const T0 = new Date("2026-11-13T10:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

type State = "new" | "open" | "merged";
/** The fan-out plan for v2 with each downstream in `state` (default: nothing done yet). */
function actions(states: Record<string, State>): FanoutAction[] {
  return VARIANTS.map((v, i): FanoutAction => {
    const name = v.metadata.name;
    const downstream = v.spec.downstream;
    const s = states[name] ?? "new";
    const nothing = { kind: "nothing", variant: name, downstream, target: "v2" } as const;
    if (s === "merged") return { ...nothing, deployed: "v2", reason: "up to date" };
    if (s === "open")
      return { ...nothing, deployed: "v1", pullRequest: 10 + i, held: "approval", reason: "open" };
    return {
      kind: "update",
      variant: name,
      upstream: { repo: "blueprints", package: "basens" },
      downstream,
      branch: `porchlight/variant/basens/${name}`,
      from: "v1",
      to: "v2",
      toCommit: "c".repeat(40),
      specHash: "h",
      reason: "update v1 → v2",
    };
  });
}
function plan(over: Partial<RolloutInput> & { states?: Record<string, State> }) {
  const { states, ...rest } = over;
  return planRollout({
    rollout: ROLLOUT,
    variants: VARIANTS,
    actions: actions(states ?? {}),
    facts: {},
    controls: { hold: false, resume: false, stopped: false },
    now: at(0),
    publishedAt: () => T0,
    openPulls: {},
    openedLastHour: 0,
    ...rest,
  });
}
const opening = (p: ReturnType<typeof plan>) =>
  p.actions.filter((a) => a.kind === "update").map((a) => a.variant);
const merged = (names: string[], baseAt = at(5)): Record<string, RolloutFacts> =>
  Object.fromEntries(names.map((n) => [n, { base: { state: "passed" }, baseAt }]));

describe("planRollout", () => {
  it("leaves variants no step selects to fan out as before", () => {
    const p = plan({ rollout: { steps: [{ name: "dev", variants: ["dev-*"] }] } });
    expect(opening(p)).toEqual(VARIANTS.map((v) => v.metadata.name));
  });

  it("opens only the first step's pull requests; the later steps wait", () => {
    const p = plan({});
    expect(opening(p)).toEqual(["dev-1", "dev-2"]);
    expect(p.rollouts[0]?.steps.map((s) => s.state)).toEqual(["rolling", "waiting", "waiting"]);
    const held = p.actions.find((a) => a.variant === "prod-1");
    expect(held).toMatchObject({ kind: "skip", why: "rollout" });
  });

  it("automerges the open pull requests of an automerge step", () => {
    const p = plan({ states: { "dev-1": "open", "dev-2": "open" } });
    expect([...p.automerge].sort()).toEqual(["dev-1", "dev-2"]);
  });

  it("soaks: the next step opens only minimumReleaseAge after the step before passed", () => {
    const states = { "dev-1": "merged", "dev-2": "merged" } as const;
    const soaking = plan({ states, facts: merged(["dev-1", "dev-2"]), now: at(30) });
    expect(opening(soaking)).toEqual([]);
    expect(soaking.rollouts[0]?.steps[1]).toMatchObject({
      state: "soaking",
      why: expect.stringContaining("11:05:00"),
    });
    expect(opening(plan({ states, facts: merged(["dev-1", "dev-2"]), now: at(66) }))).toEqual([
      "stg-1",
      "stg-2",
    ]);
  });

  it("soaks from the publish when the steps before hold no downstream of the package", () => {
    const rollout: Rollout = {
      steps: [
        { name: "none", labels: { env: "nowhere" } },
        { ...ROLLOUT.steps[0]!, minimumReleaseAge: "30m" },
      ],
    };
    expect(opening(plan({ rollout, now: at(10) })).filter((n) => n.startsWith("dev"))).toEqual([]);
    expect(opening(plan({ rollout, now: at(31) })).filter((n) => n.startsWith("dev"))).toEqual([
      "dev-1",
      "dev-2",
    ]);
  });

  it("soak: pending-check opens the soaking step's pull requests with a pending check, automerged after", () => {
    const rollout: Rollout = { ...ROLLOUT, soak: "pending-check", minimumReleaseAge: "30m" };
    const soaking = plan({ rollout, now: at(10) });
    expect(opening(soaking)).toEqual(["dev-1", "dev-2"]);
    expect(soaking.soakChecks).toEqual(
      new Map([
        ["dev-1", at(30)],
        ["dev-2", at(30)],
      ]),
    );
    expect(soaking.rollouts[0]?.steps[0]?.state).toBe("soaking");
    const open = plan({ rollout, now: at(20), states: { "dev-1": "open", "dev-2": "open" } });
    expect(open.automerge.size).toBe(0);
    const soaked = plan({ rollout, now: at(31), states: { "dev-1": "open", "dev-2": "open" } });
    expect(soaked.soakChecks).toEqual(
      new Map([
        ["dev-1", null],
        ["dev-2", null],
      ]),
    );
    expect([...soaked.automerge].sort()).toEqual(["dev-1", "dev-2"]);
  });

  it("waits while checks run on a default branch, and stops the rollout when one fails", () => {
    const states = { "dev-1": "merged", "dev-2": "merged", "stg-1": "merged", "stg-2": "merged" } as const;
    const facts = merged(["dev-1", "dev-2", "stg-1"]);
    const pending = plan({
      states,
      facts: { ...facts, "stg-2": { base: { state: "pending" }, baseAt: at(70) } },
      now: at(80),
    });
    expect(opening(pending)).toEqual([]);
    expect(pending.stop).toBe(false);
    const failed = plan({
      states,
      facts: { ...facts, "stg-2": { base: { state: "failed", failing: ["ci/e2e"] }, baseAt: at(70) } },
      now: at(80),
    });
    expect(opening(failed)).toEqual([]);
    expect(failed.stop).toBe(true);
    expect(failed.rollouts[0]?.failed).toEqual({
      step: "staging",
      why: "stg-2/basens: checks failed on the default branch: ci/e2e",
    });
    // Fixed, but stopped until a person resumes; resumed, prod opens within maxConcurrent.
    const fixed = { ...facts, ...merged(["stg-2"], at(70)) };
    expect(
      opening(
        plan({ states, facts: fixed, now: at(80), controls: { hold: false, resume: false, stopped: true } }),
      ),
    ).toEqual([]);
    const resumed = plan({
      states,
      facts: fixed,
      now: at(80),
      controls: { hold: false, resume: true, stopped: false },
    });
    expect(opening(resumed)).toEqual(["prod-1", "prod-2"]);
    expect(resumed.rollouts[0]?.steps[2]?.members.map((m) => m.state)).toEqual([
      "opening",
      "opening",
      "limited",
    ]);
  });

  it("keeps to prConcurrentLimit per repository and prHourlyLimit", () => {
    const perRepo = plan({ rollout: { ...ROLLOUT, prConcurrentLimit: 1 }, openPulls: { "dev-2": 1 } });
    expect(opening(perRepo)).toEqual(["dev-1"]);
    expect(perRepo.rollouts[0]?.steps[0]?.members[1]).toMatchObject({
      state: "limited",
      why: "prConcurrentLimit: 1 open in dev-2",
    });
    const hourly = plan({ rollout: { ...ROLLOUT, prHourlyLimit: 3 }, openedLastHour: 2 });
    expect(opening(hourly)).toEqual(["dev-1"]);
  });

  it("holds everything in a freeze window, on /rollout hold, and outside the schedule", () => {
    const freeze = { ...ROLLOUT, freeze: [{ cron: "* 10 * * fri" }] };
    expect(opening(plan({ rollout: freeze }))).toEqual([]);
    expect(opening(plan({ rollout: freeze, now: at(60) }))).toEqual(["dev-1", "dev-2"]);
    expect(
      opening(plan({ rollout: freeze, controls: { hold: false, resume: true, stopped: false } })),
    ).toEqual(["dev-1", "dev-2"]);
    expect(opening(plan({ controls: { hold: true, resume: false, stopped: false } }))).toEqual([]);
    const schedule = { ...ROLLOUT, schedule: [{ cron: "* 12-16 * * *", timezone: "Europe/Berlin" }] };
    expect(opening(plan({ rollout: schedule }))).toEqual([]);
    expect(opening(plan({ rollout: schedule, now: at(60) }))).toEqual(["dev-1", "dev-2"]);
  });

  it("makes a step with maxConcurrent 0 a manual gate", () => {
    const gate = {
      steps: [{ name: "dev", labels: { env: "dev" }, maxConcurrent: 0 }, ...ROLLOUT.steps.slice(1)],
    };
    const p = plan({ rollout: gate });
    expect(opening(p)).toEqual([]);
    expect(p.rollouts[0]?.steps[0]?.state).toBe("gated");
    expect(opening(plan({ rollout: gate, controls: { hold: false, resume: true, stopped: false } }))).toEqual(
      ["dev-1"],
    );
  });

  it("stops at a failing check on a step's pull request", () => {
    const p = plan({
      states: { "dev-1": "open", "dev-2": "open" },
      facts: { "dev-2": { pull: { state: "failed", failing: ["porchlight/guardrails"] } } },
    });
    expect(p.stop).toBe(true);
    expect(p.automerge.has("dev-2")).toBe(false);
    expect(p.rollouts[0]?.failed?.why).toBe("dev-2/basens: checks failed on #11: porchlight/guardrails");
  });
});
