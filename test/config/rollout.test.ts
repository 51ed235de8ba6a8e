import { describe, expect, it } from "vitest";
import { cronMatches, parseCron } from "../../src/config/cron.js";
import { formatProblem, parseRepoConfig } from "../../src/config/index.js";
import { durationMs } from "../../src/config/rollout-schema.js";
import { codeBlock } from "../util/codeblock.js";

const problems = (text: string) => {
  const parsed = parseRepoConfig(text, { ref: "main" });
  if (parsed.ok) throw new Error("expected problems");
  return parsed.problems.map(formatProblem);
};

describe("rollout configuration", () => {
  it("accepts three waves with limits, a schedule, a freeze and automerge", () => {
    const parsed = parseRepoConfig(codeBlock`
      rollout:
        minimumReleaseAge: 1h
        soak: pending-check
        prConcurrentLimit: 2
        prHourlyLimit: 10
        automergeTimeout: 1d12h
        schedule:
          - cron: "* 9-17 * * mon-fri"
            timezone: Europe/Berlin
        freeze:
          - cron: ["* * 24-26 dec *"]
        steps:
          - name: dev
            labels: {env: dev}
            automerge: true
            minimumReleaseAge: "0"
          - name: staging
            variants: [staging-*]
            maxConcurrent: 50%
          - name: prod
            labels: {env: prod}
            maxConcurrent: 0
    `);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.config.rollout?.steps.map((s) => [s.name, s.maxConcurrent])).toEqual([
      ["dev", undefined],
      ["staging", "50%"],
      ["prod", 0],
    ]);
  });

  it("reads the rebase policy per rollout and per step, and names a wrong one at its line", () => {
    const parsed = parseRepoConfig(codeBlock`
      rollout:
        rebaseWhen: conflicted
        steps:
          - name: dev
            labels: {env: dev}
            rebaseWhen: behind-base-branch
          - name: prod
            labels: {env: prod}
    `);
    expect(parsed.ok && parsed.config.rollout).toMatchObject({
      rebaseWhen: "conflicted",
      steps: [{ rebaseWhen: "behind-base-branch" }, { name: "prod" }],
    });
    expect(
      problems(codeBlock`
        rollout:
          steps:
            - name: dev
              labels: {env: dev}
              rebaseWhen: auto
      `),
    ).toEqual([
      '.github/porchlight.yml:5:19 (main): rollout.steps[0].rebaseWhen: must be one of conflicted, behind-base-branch, never, not "auto"',
    ]);
  });

  it("reports each mistake at its line and field", () => {
    expect(
      problems(codeBlock`
        rollout:
          minimumReleaseAge: 2 hours
          steps:
            - name: dev
              labels: {env: dev}
              maxConcurent: 1
            - name: dev
              variants: [a]
              maxConcurrent: 150%
            - name: prod
          schedule:
            - cron: "* 25 * * *"
              timezone: Mars/Olympus
      `),
    ).toEqual([
      '.github/porchlight.yml:2:22 (main): rollout.minimumReleaseAge: must be a duration such as "30m", "2h", "1d" or "1d12h" (or "0")',
      ".github/porchlight.yml:6:7 (main): rollout.steps[0].maxConcurent: unknown field `maxConcurent`; did you mean `maxConcurrent`?",
      '.github/porchlight.yml:7:13 (main): rollout.steps[1].name: names step 1 already ("dev"); give each step its own name',
      '.github/porchlight.yml:9:22 (main): rollout.steps[1].maxConcurrent: must be a percentage from "1%" to "100%", or a number',
      ".github/porchlight.yml:10:13 (main): rollout.steps[2].name: selects no variant: give `variants` (names or globs) or `labels`",
      '.github/porchlight.yml:12:13 (main): rollout.schedule[0].cron: hour field "25" is not valid: use *, a number 0-23, a range a-b, a step */n, or a comma list',
      ".github/porchlight.yml:13:17 (main): rollout.schedule[0].timezone: must be an IANA time zone such as UTC, Europe/Berlin or America/New_York",
    ]);
  });
});

describe("cron windows", () => {
  it.each([
    ["* 9-17 * * mon-fri", "2026-11-23T08:30:00Z", "Europe/Berlin", true],
    ["* 9-17 * * mon-fri", "2026-11-23T08:30:00Z", "UTC", false],
    ["* 9-17 * * mon-fri", "2026-11-22T10:30:00Z", "Europe/Berlin", false],
    ["*/15 * * * *", "2026-11-22T10:30:00Z", "UTC", true],
    ["*/15 * * * *", "2026-11-22T10:31:00Z", "UTC", false],
    ["* * 24-26 dec *", "2026-12-25T23:30:00Z", "UTC", true],
    ["* * 24-26 dec *", "2026-12-26T23:30:00Z", "America/New_York", true],
    ["* * 1 * 1", "2026-11-23T00:00:00Z", "UTC", true],
    // the minute of the time: seconds do not matter
    ["30 8 * * *", "2026-11-23T08:30:59.999Z", "UTC", true],
    // both day fields restricted: either (2026-11-23 a Monday, 2026-12-01 a Tuesday)
    ["* * 1 * mon", "2026-12-01T12:00:00Z", "UTC", true],
    ["* * 1 * mon", "2026-11-24T12:00:00Z", "UTC", false],
    // one day field a step of *: both, as Vixie cron reads it (the 23rd is odd and a Monday, the 30th even)
    ["* * */2 * mon", "2026-11-23T12:00:00Z", "UTC", true],
    ["* * */2 * mon", "2026-11-30T12:00:00Z", "UTC", false],
    ["* * */2 * mon", "2026-12-01T12:00:00Z", "UTC", false],
    ["* * 1 * */2", "2026-12-01T12:00:00Z", "UTC", true],
    ["* * 1 * */2", "2026-11-24T12:00:00Z", "UTC", false],
    // croner's last day of the month, last Friday and first Monday
    ["* * L * *", "2026-02-28T12:00:00Z", "UTC", true],
    ["* * L * *", "2026-02-27T12:00:00Z", "UTC", false],
    ["* * * * fri#L", "2026-11-27T12:00:00Z", "UTC", true],
    ["* * * * fri#L", "2026-11-20T12:00:00Z", "UTC", false],
    ["* * * * mon#1", "2026-11-02T12:00:00Z", "UTC", true],
    ["* * * * 7", "2026-11-22T12:00:00Z", "UTC", true],
    // 02:30 does not happen in Berlin on 2026-03-29; 02:30 happens twice on 2026-10-25
    ["* 2 * * *", "2026-03-29T01:30:00Z", "Europe/Berlin", false],
    ["30 2 * * *", "2026-10-25T00:30:00Z", "Europe/Berlin", true],
    ["30 2 * * *", "2026-10-25T01:30:00Z", "Europe/Berlin", true],
  ])("%s at %s in %s: %s", (expr, at, zone, expected) => {
    const parsed = parseCron(expr);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(cronMatches(parsed.cron, new Date(at), zone)).toBe(expected);
  });

  it.each([
    ["* * * *", /must have five fields .* not 4/],
    ["* * * * * *", /must have five fields .* not 6/],
    ["60 * * * *", /^minute field "60" is not valid: use \*, a number 0-59, a range/],
    ["* * 0 * *", /^day of month field "0" is not valid: use \*, a number 1-31/],
    ["* * * 13 *", /^month field "13" is not valid: use \*, a number 1-12 or a name \(jan…\)/],
    ["* * * * 8", /^day of week field "8" is not valid: use \*, a number 0-7 or a name \(sun…\)/],
    ["* * * * fri-mon", /^day of week field "fri-mon" is not valid/],
    // a step from a single number: refused, as Vixie cron refuses it (5-59/15 says it)
    ["5/15 * * * *", /^minute field "5\/15" is not valid: .*a step \*\/n/],
    ["*/0 * * * *", /^minute field "\*\/0" is not valid/],
  ])("refuses %s", (expr, message) => {
    const parsed = parseCron(expr);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });

  it("reads durations", () => {
    expect(durationMs("0")).toBe(0);
    expect(durationMs("90m")).toBe(90 * 60_000);
    expect(durationMs("1d12h")).toBe(36 * 3_600_000);
  });
});
