import { describe, expect, it } from "vitest";
import { addRevision, parseCatalog, promote } from "../../src/catalog/index.js";
import { parseVariantFile } from "../../src/variants/parse.js";
import { planFanout, upstreamFromCatalog } from "../../src/variants/plan.js";
import type { DownstreamPackageState, UpstreamIndex } from "../../src/variants/plan-types.js";
import type { PackageVariant } from "../../src/variants/schema.js";
import { variantSpecHash } from "../../src/variants/tracking.js";
import { codeBlock } from "../util/codeblock.js";

function pv(name: string, upstream: string, extra = ""): PackageVariant {
  const text = codeBlock`
    apiVersion: config.porch.kpt.dev/v1alpha1
    kind: PackageVariant
    metadata: {name: ${name}}
    spec:
      upstream: {repo: blueprints, package: basens, ${upstream}}
      downstream: {repo: cluster-01, package: basens}
  `;
  const { variants, problems } = parseVariantFile("v.yaml", text + extra);
  expect(problems).toEqual([]);
  return (variants[0] as { variant: PackageVariant }).variant;
}

const SHA = (n: number) => String(n).repeat(40);
const upstream: UpstreamIndex = {
  blueprints: {
    basens: {
      revisions: [1, 2, 3].map((n) => ({ revision: `v${n}`, commit: SHA(n) })),
      channelHeads: { stable: "v2" },
    },
  },
};

describe("planFanout", () => {
  const v3 = pv("a", "revision: v3");
  const hash = variantSpecHash(v3);
  const managed = (extra: Partial<DownstreamPackageState> = {}): DownstreamPackageState => ({
    exists: true,
    lockedRevision: "v2",
    managedBy: "a",
    specHash: hash,
    ...extra,
  });

  it.each<{ name: string; variant?: PackageVariant; state?: DownstreamPackageState; expected: object }>([
    {
      name: "clones a downstream that does not exist",
      expected: { kind: "clone", to: "v3", toCommit: SHA(3), branch: "porchlight/variant/basens/a" },
    },
    {
      name: "updates from the locked revision to the pinned one",
      state: managed(),
      expected: { kind: "update", from: "v2", to: "v3", specHash: hash },
    },
    {
      name: "does nothing when converged",
      state: managed({ lockedRevision: "v3" }),
      expected: { kind: "nothing", reason: "up to date at v3", deployed: "v3" },
    },
    {
      name: "does nothing while the open pull request proposes exactly this",
      state: managed({
        pullRequest: { number: 7, kind: "update", targetRevision: "v3", specHash: hash, conflicts: 2 },
      }),
      expected: { kind: "nothing", pullRequest: 7, conflicts: 2, reason: "pull request #7 proposes v2 → v3" },
    },
    {
      name: "rebuilds an open pull request on the default branch when the rebase policy says so",
      state: managed({
        pullRequest: { number: 7, kind: "update", targetRevision: "v3", specHash: hash, rebase: "moved" },
      }),
      expected: {
        kind: "update",
        from: "v2",
        to: "v3",
        pullRequest: 7,
        rebase: "moved",
        reason: "rebuild #7 (v2 → v3) on the default branch: moved",
      },
    },
    {
      name: "retargets and rebuilds at once",
      state: managed({
        pullRequest: { number: 7, kind: "update", targetRevision: "v2", specHash: hash, rebase: "moved" },
      }),
      expected: {
        kind: "update",
        pullRequest: 7,
        rebase: "moved",
        reason: "update v2 → v3; rebuild #7 on the default branch: moved",
      },
    },
    {
      name: "never rebuilds a pull request others have pushed to",
      state: managed({
        pullRequest: {
          number: 7,
          kind: "update",
          targetRevision: "v3",
          specHash: hash,
          editedByOthers: true,
          rebase: "moved",
        },
      }),
      expected: { kind: "nothing", pullRequest: 7, held: "edited" },
    },
    {
      name: "refreshes an open pull request that proposes an older target",
      state: managed({ pullRequest: { number: 7, kind: "update", targetRevision: "v2", specHash: "old" } }),
      expected: { kind: "update", from: "v2", to: "v3", pullRequest: 7 },
    },
    {
      name: "leaves a pull request others have pushed to",
      state: managed({
        pullRequest: { number: 7, kind: "update", targetRevision: "v2", editedByOthers: true },
      }),
      expected: { kind: "nothing", pullRequest: 7, reason: expect.stringMatching(/commits from others/) },
    },
    {
      name: "re-applies a changed variant at the same revision",
      state: managed({ lockedRevision: "v3", specHash: "before" }),
      expected: { kind: "update", from: "v3", to: "v3", reason: "the variant changed: re-apply it at v3" },
    },
    {
      name: "closes a stale pull request once converged",
      state: managed({
        lockedRevision: "v3",
        pullRequest: { number: 9, kind: "update", targetRevision: "v2" },
      }),
      expected: { kind: "nothing", close: [{ number: 9, reason: "basens is at v3 already" }] },
    },
    {
      name: "follows a channel's head",
      variant: pv("a", "channel: stable"),
      state: managed({ lockedRevision: "v1", specHash: variantSpecHash(pv("a", "channel: stable")) }),
      expected: { kind: "update", from: "v1", to: "v2" },
    },
    {
      name: "skips a paused variant",
      variant: pv("a", "revision: v3", "  paused: true\n"),
      state: managed(),
      expected: { kind: "skip", why: "paused", deployed: "v2" },
    },
    {
      name: "skips a revision that was never published",
      variant: pv("a", "revision: v9"),
      expected: {
        kind: "skip",
        why: "problem",
        reason: "revision v9 of basens is not published (published: v1, v2, v3)",
      },
    },
    {
      name: "skips an unknown channel",
      variant: pv("a", "channel: beta"),
      expected: {
        kind: "skip",
        why: "problem",
        reason: expect.stringMatching(
          /channel beta of basens has no head in the catalog \(channels: stable\)/,
        ),
      },
    },
    {
      name: "does not adopt an existing package by default (adoptNone)",
      state: { exists: true, lockedRevision: "v2" },
      expected: {
        kind: "skip",
        why: "problem",
        reason: expect.stringMatching(/adoptionPolicy is adoptNone/),
      },
    },
    {
      name: "adopts an existing package with adoptExisting",
      variant: pv("a", "revision: v3", "  adoptionPolicy: adoptExisting\n"),
      state: { exists: true, lockedRevision: "v3" },
      expected: { kind: "update", from: "v3", to: "v3", reason: expect.stringMatching(/^adopt basens/) },
    },
    {
      name: "skips the target of a pull request closed without merging (not this revision, for this downstream)",
      state: managed({ declined: { number: 7, targetRevision: "v3", specHash: hash, reapply: false } }),
      expected: { kind: "skip", why: "declined", pullRequest: 7, target: "v3", deployed: "v2" },
    },
    {
      name: "skips a declined clone too",
      state: { exists: false, declined: { number: 4, targetRevision: "v3", reapply: false } },
      expected: { kind: "skip", why: "declined", pullRequest: 4, target: "v3" },
    },
    {
      name: "proposes a revision newer than the declined one",
      state: managed({ declined: { number: 7, targetRevision: "v2", specHash: hash, reapply: false } }),
      expected: { kind: "update", from: "v2", to: "v3" },
    },
    {
      name: "declining an update to a revision holds whatever the variant says meanwhile",
      state: managed({ declined: { number: 7, targetRevision: "v3", specHash: "older", reapply: false } }),
      expected: { kind: "skip", why: "declined" },
    },
    {
      name: "re-applies a variant that changed again after a declined re-apply",
      state: managed({
        lockedRevision: "v3",
        specHash: "before",
        declined: { number: 7, targetRevision: "v3", specHash: "older", reapply: true },
      }),
      expected: { kind: "update", from: "v3", to: "v3" },
    },
    {
      name: "an up-to-date downstream is up to date, whatever was declined",
      state: managed({
        lockedRevision: "v3",
        declined: { number: 7, targetRevision: "v3", specHash: hash, reapply: false },
      }),
      expected: { kind: "nothing", reason: "up to date at v3" },
    },
    {
      name: "refuses a package another variant manages",
      state: managed({ managedBy: "b" }),
      expected: { kind: "skip", why: "problem", reason: expect.stringMatching(/managed by variant b/) },
    },
  ])("$name", ({ variant, state, expected }) => {
    const v = variant ?? v3;
    const plan = planFanout({ variants: [v], upstream, downstream: state ? { a: state } : {} });
    expect(plan.actions).toEqual([expect.objectContaining(expected)]);
  });

  it("proposes deleting, or orphans, the downstream of a removed variant, by its recorded policy", () => {
    const plan = planFanout({
      variants: [],
      upstream,
      downstream: {},
      managed: [
        { repo: "cluster-01", package: "basens", variant: "gone", deletionPolicy: "delete" },
        { repo: "cluster-02", package: "basens", variant: "kept", deletionPolicy: "orphan" },
        {
          repo: "cluster-03",
          package: "basens",
          variant: "asked",
          deletionPolicy: "delete",
          pullRequest: { number: 4, kind: "deletion" },
        },
      ],
    });
    expect(plan.actions.map((a) => [a.kind, a.variant])).toEqual([
      ["deletion-proposal", "gone"],
      ["orphan", "kept"],
      ["nothing", "asked"],
    ]);
  });

  it("discards the never-published downstream of a removed variant with deletionPolicy delete, and leaves an orphan's", () => {
    const proposal = (number: number) => ({ number, kind: "update" as const, targetRevision: "v3" });
    const plan = planFanout({
      variants: [],
      upstream,
      downstream: {},
      managed: [
        {
          repo: "cluster-01",
          package: "basens",
          variant: "gone",
          deletionPolicy: "delete",
          unpublished: true,
          pullRequest: proposal(5),
        },
        {
          repo: "cluster-02",
          package: "basens",
          variant: "kept",
          deletionPolicy: "orphan",
          unpublished: true,
          pullRequest: proposal(6),
        },
      ],
    });
    expect(plan.actions).toEqual([
      expect.objectContaining({
        kind: "discard",
        variant: "gone",
        pullRequest: 5,
        branch: "porchlight/variant/basens/gone",
      }),
      expect.objectContaining({
        kind: "nothing",
        variant: "kept",
        reason: expect.stringContaining("#6, never published, stays open"),
      }),
    ]);
  });

  it("deletes nothing while the variant files have problems", () => {
    const plan = planFanout({
      variants: [],
      problems: [{ file: "x.yaml", line: 1, column: 1, field: "", message: "not valid YAML" }],
      upstream,
      downstream: {},
      managed: [{ repo: "cluster-01", package: "basens", variant: "gone", deletionPolicy: "delete" }],
    });
    expect(plan.actions).toEqual([
      expect.objectContaining({ kind: "skip", why: "problem", variant: "gone" }),
    ]);
  });

  it("reports variants skipped for problems", () => {
    const plan = planFanout({
      variants: [],
      problems: [
        {
          file: "x.yaml",
          line: 3,
          column: 1,
          field: "spec.downstream.repo",
          variant: "bad",
          message: 'unknown repository "nope"',
        },
      ],
      upstream,
      downstream: {},
    });
    expect(plan.actions).toEqual([
      expect.objectContaining({
        kind: "skip",
        why: "problem",
        variant: "bad",
        reason: 'unknown repository "nope"',
      }),
    ]);
  });

  it("reads channel heads from the catalog", () => {
    let text = "";
    for (const r of ["v1", "v2", "v3"])
      text = addRevision(text, {
        package: "basens",
        revision: r,
        commit: SHA(1),
        time: "t",
        channels: ["beta"],
      }).text;
    text = promote(text, "basens", "v2", "stable").text;
    const index = upstreamFromCatalog(parseCatalog(text).catalog);
    expect(index.basens?.channelHeads).toEqual({ beta: "v3", stable: "v2" });
    expect(index.basens?.defaultChannel).toBe("beta"); // the first channel a revision joined
    expect(index.basens?.revisions[1]).toEqual({
      revision: "v2",
      commit: SHA(1),
      channels: ["beta", "stable"],
    });
  });
});

describe("planFanout: which upstream revision", () => {
  const index = (extra: object = {}): UpstreamIndex => ({
    blueprints: {
      basens: {
        revisions: [
          { revision: "v1", commit: SHA(1) },
          { revision: "v2", commit: SHA(2), workspace: "ws-2" },
          { revision: "v3", commit: SHA(3), workspace: "feature" },
        ],
        branch: "main",
        ...extra,
      },
    },
  });

  it.each([
    ["a workspace: the revision published from it", "workspaceName: ws-2", "v2"],
    ["a workspace its commit does not name: v<N>, as Porch names it", "workspaceName: v1", "v1"],
    ["the registered branch (Porch's main placeholder): the latest", "workspaceName: main", "v3"],
    ["a workspace and the revision it was published as", "workspaceName: feature, revision: v3", "v3"],
    ["neither revision nor workspace: the latest published", "", "v3"],
  ])("%s", (_name, fields, to) => {
    const variant = pv("a", fields);
    const { actions } = planFanout({ variants: [variant], upstream: index(), downstream: {} });
    expect(actions[0]).toMatchObject({ kind: "clone", to });
  });

  it("neither revision, workspace nor channel, where the catalog keeps channels: its default channel's head", () => {
    const channels = index({ channelHeads: { stable: "v2", beta: "v3" }, defaultChannel: "stable" });
    const { actions } = planFanout({ variants: [pv("a", "")], upstream: channels, downstream: {} });
    expect(actions[0]).toMatchObject({ kind: "clone", to: "v2" });
    // a revision named is that revision, whatever the default channel
    const named = planFanout({ variants: [pv("a", "revision: v3")], upstream: channels, downstream: {} });
    expect(named.actions[0]).toMatchObject({ kind: "clone", to: "v3" });
  });

  it.each([
    [
      "a workspace never published",
      "workspaceName: nope",
      "no published revision of basens was made in workspace nope (workspaces: v1 (v1), ws-2 (v2), feature (v3))",
    ],
    [
      "a workspace and a revision that disagree",
      "workspaceName: ws-2, revision: v3",
      "workspace ws-2 of basens is published as v2, not v3: give one of revision and workspaceName, or make them agree",
    ],
  ])("skips %s, saying why", (_name, fields, reason) => {
    const { actions } = planFanout({ variants: [pv("a", fields)], upstream: index(), downstream: {} });
    expect(actions[0]).toMatchObject({ kind: "skip", why: "problem", reason });
  });

  it("moves a variant with no revision to each newly published revision", () => {
    const variant = pv("a", "");
    const state: DownstreamPackageState = {
      exists: true,
      lockedRevision: "v3",
      managedBy: "a",
      specHash: variantSpecHash(variant),
    };
    const four = index({
      revisions: [
        ...["v1", "v2", "v3"].map((revision, i) => ({ revision, commit: SHA(i + 1) })),
        { revision: "v4", commit: SHA(4) },
      ],
    });
    expect(
      planFanout({ variants: [variant], upstream: index(), downstream: { a: state } }).actions[0],
    ).toMatchObject({ kind: "nothing" });
    expect(
      planFanout({ variants: [variant], upstream: four, downstream: { a: state } }).actions[0],
    ).toMatchObject({ kind: "update", from: "v3", to: "v4" });
  });
});
