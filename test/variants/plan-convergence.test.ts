import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseVariantFile } from "../../src/variants/parse.js";
import { planFanout } from "../../src/variants/plan.js";
import type { DownstreamPackageState, FanoutAction, UpstreamIndex } from "../../src/variants/plan-types.js";
import type { PackageVariant } from "../../src/variants/schema.js";

const upstream: UpstreamIndex = {
  blueprints: {
    basens: {
      revisions: ["v1", "v2", "v3", "v4"].map((revision) => ({ revision, commit: revision.repeat(10) })),
      channelHeads: { stable: "v3", beta: "v4" },
    },
  },
};

function variant(i: number, pin: string, adopt: boolean, context: string): PackageVariant {
  const text = [
    "apiVersion: config.porch.kpt.dev/v1alpha1",
    "kind: PackageVariant",
    `metadata: {name: v${i}}`,
    "spec:",
    `  upstream: {repo: blueprints, package: basens, ${pin}}`,
    `  downstream: {repo: cluster-${i}, package: basens}`,
    `  adoptionPolicy: ${adopt ? "adoptExisting" : "adoptNone"}`,
    `  packageContext: {data: {k: "${context}"}}`,
  ].join("\n");
  return parseVariantFile("v.yaml", text).variants[0]?.variant as PackageVariant;
}

/** What the executing layer does with an action once its pull request is merged. */
function execute(
  action: FanoutAction,
  state: DownstreamPackageState | undefined,
): DownstreamPackageState | undefined {
  if (action.kind === "clone" || action.kind === "update") {
    return { exists: true, lockedRevision: action.to, managedBy: action.variant, specHash: action.specHash };
  }
  return state;
}

const stateArb: fc.Arbitrary<DownstreamPackageState | undefined> = fc.option(
  fc.record({
    exists: fc.constant(true),
    lockedRevision: fc.constantFrom("v1", "v2", "v3", "v4"),
    managedBy: fc.option(fc.constant("self"), { nil: undefined }),
    specHash: fc.option(fc.constantFrom("stale"), { nil: undefined }),
    pullRequest: fc.option(
      fc.record({
        number: fc.nat({ max: 99 }),
        kind: fc.constant("update" as const),
        targetRevision: fc.constantFrom("v1", "v4"),
      }),
      { nil: undefined },
    ),
  }),
  { nil: undefined },
);

describe("planFanout convergence", () => {
  it("reaches nothing-to-do once the planned pull requests are merged, and stays there", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            pin: fc.constantFrom("revision: v2", "revision: v4", "channel: stable", "channel: beta"),
            adopt: fc.boolean(),
            context: fc.constantFrom("a", "b"),
            state: stateArb,
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (specs) => {
          const variants = specs.map((s, i) => variant(i, s.pin, s.adopt, s.context));
          let downstream: Record<string, DownstreamPackageState> = {};
          specs.forEach((s, i) => {
            if (s.state)
              downstream[`v${i}`] = { ...s.state, ...(s.state.managedBy ? { managedBy: `v${i}` } : {}) };
          });
          const first = planFanout({ variants, upstream, downstream });
          const next: Record<string, DownstreamPackageState> = {};
          for (const a of first.actions) {
            const s = execute(a, downstream[a.variant]);
            if (s) next[a.variant] = s;
          }
          downstream = next;
          const second = planFanout({ variants, upstream, downstream });
          for (const a of second.actions) {
            expect(["nothing", "skip"], JSON.stringify(a)).toContain(a.kind);
            if (a.kind === "nothing") expect(a.reason).toMatch(/^up to date at v\d$/);
          }
          expect(planFanout({ variants, upstream, downstream })).toEqual(second);
        },
      ),
      { numRuns: 100, seed: 42 },
    );
  });
});
