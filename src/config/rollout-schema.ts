import { z } from "zod";
import { isTimeZone, parseCron } from "./cron.js";

/**
 * `rollout:` of the management repository's `.github/porchlight.yml`: fan-out as a progressive rollout
 * (docs/fanout.md#progressive-rollout). Steps select variants by name or label and open their pull
 * requests wave after wave; limits, schedules and freezes pace them.
 */

/** A duration: `90m`, `2h`, `1d`, `1d12h`; `0` for none. */
const DURATION = /^(?:0|(?=\d)(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?)$/;

/** Milliseconds of a duration DURATION accepts. */
export function durationMs(text: string): number {
  const m = DURATION.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  const [, d, h, min] = m;
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000;
}

const duration = (what: string) =>
  z
    .string()
    .regex(DURATION, 'must be a duration such as "30m", "2h", "1d" or "1d12h" (or "0")')
    .describe(what);

const cron = z.string().superRefine((text, ctx) => {
  const parsed = parseCron(text);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
});

const timeZone = z
  .string()
  .refine(isTimeZone, "must be an IANA time zone such as UTC, Europe/Berlin or America/New_York")
  .describe("The time zone the cron fields are read in; default UTC.");

const WindowSchema = z
  .strictObject({
    cron: z
      .union([cron, z.array(cron).min(1)])
      .describe(
        'Cron expressions (five fields) listing the minutes of the window, e.g. "* 9-17 * * mon-fri"; one or a list (any matching).',
      ),
    timezone: timeZone.optional(),
  })
  .describe("A time window: the minutes any of its cron expressions matches, in its time zone.");
export type Window = z.infer<typeof WindowSchema>;

/** `maxConcurrent`: a number of pull requests, or a percentage of the step's variants. */
const maxConcurrent = z
  .union([
    z.number().int().min(0, "must be 0 (a manual gate) or more"),
    z.string().regex(/^(100|[1-9][0-9]?)%$/, 'must be a percentage from "1%" to "100%", or a number'),
  ])
  .describe(
    'How many of the step\'s pull requests may be open at once: a number or a percentage of its variants ("25%", at least 1); 0 makes the step a manual gate that waits for `/rollout resume`. Default "100%".',
  );

/** `rebaseWhen`: when an open fan-out pull request is rebuilt on the downstream's moved default branch. */
const REBASE_WHEN = ["conflicted", "behind-base-branch", "never"] as const;
export type RebaseWhen = (typeof REBASE_WHEN)[number];

const rebaseWhen = (what: string) => z.enum(REBASE_WHEN).describe(what);

const RolloutStepSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be lowercase letters, digits and '-', like `staging`")
      .describe("The step's name, shown on the dashboard and in the pull requests."),
    variants: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("Variant names (globs: `dev-*`) this step rolls out to."),
    labels: z
      .record(z.string(), z.string())
      .optional()
      .describe("Variants whose metadata.labels hold all of these (e.g. env: prod) are in this step."),
    maxConcurrent: maxConcurrent.optional(),
    minimumReleaseAge: duration(
      "How long the previous step must have passed (the first step: how long the revision must have been published) before this step's pull requests open; default: the rollout's.",
    ).optional(),
    automerge: z
      .boolean()
      .optional()
      .describe(
        "Merge this step's pull requests when their checks pass and they have no conflicts, with the downstream's merge method; never one a person pushed to. Default false.",
      ),
    rebaseWhen: rebaseWhen(
      "The rebase policy of this step's pull requests; default: the rollout's.",
    ).optional(),
  })
  .refine((s) => s.variants !== undefined || s.labels !== undefined, {
    message: "selects no variant: give `variants` (names or globs) or `labels`",
    path: ["name"],
  });
export type RolloutStep = z.infer<typeof RolloutStepSchema>;

export const RolloutSchema = z
  .strictObject({
    steps: z
      .array(RolloutStepSchema)
      .min(1)
      .describe(
        "The waves, in order: a step's pull requests open once every pull request of the step before is merged and its checks passed on each downstream's default branch.",
      ),
    minimumReleaseAge: duration("The default soak time of every step; default 0.").optional(),
    soak: z
      .enum(["no-pull-request", "pending-check"])
      .optional()
      .describe(
        "While a step soaks: `no-pull-request` (default) opens nothing yet; `pending-check` opens its pull requests with a pending check run `porchlight/rollout` that passes when the soak time is over.",
      ),
    prConcurrentLimit: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "The most fan-out pull requests open at once in one downstream repository; 0 (default) for no limit.",
      ),
    prHourlyLimit: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "The most fan-out pull requests opened in one hour across this rollout's downstream repositories (by when each was opened, merged since or not); 0 (default) for no limit.",
      ),
    schedule: z
      .array(WindowSchema)
      .min(1)
      .optional()
      .describe("When pull requests may open or be automerged; default: any time."),
    freeze: z
      .array(WindowSchema)
      .min(1)
      .optional()
      .describe(
        "When nothing opens or is automerged, whatever the schedule says (`/rollout resume` overrides).",
      ),
    rebaseWhen: rebaseWhen(
      "When an open fan-out pull request that already proposes the target is rebuilt on its downstream's default branch after that branch moved: `conflicted` (only when it no longer merges cleanly), `behind-base-branch` (whenever the branch moved past the pull request's merge base) or `never` (default, as without a rollout). A new upstream revision or a changed variant rebuilds it whatever the policy.",
    ).optional(),
    automergeTimeout: duration(
      "How long an automerge step waits for a pull request to become mergeable before labelling it porchlight/automerge-failed and leaving it to people; default 1d.",
    ).optional(),
  })
  .superRefine((r, ctx) => {
    const seen = new Map<string, number>();
    r.steps.forEach((s, i) => {
      const first = seen.get(s.name);
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["steps", i, "name"],
          message: `names step ${first + 1} already (${JSON.stringify(s.name)}); give each step its own name`,
        });
      else seen.set(s.name, i);
    });
  })
  .describe(
    "Fan-out as a progressive rollout: waves of variants, soak time, limits, schedules and automerge.",
  );
export type Rollout = z.infer<typeof RolloutSchema>;
