import { describe, expect, it } from "vitest";
import {
  DASHBOARD_MARKER,
  formatDownstreamsMarker,
  isDashboardBody,
  parseDashboardRow,
  parseDownstreamsMarker,
  renderDashboard,
} from "../../src/variants/dashboard.js";
import { parseVariantFile } from "../../src/variants/parse.js";
import { planFanout } from "../../src/variants/plan.js";
import type { DownstreamPackageState } from "../../src/variants/plan-types.js";
import { variantSpecHash } from "../../src/variants/tracking.js";
import { variantDoc } from "../util/krm.js";

const { variants } = parseVariantFile(
  "v.yaml",
  [
    variantDoc(
      "c1",
      "{repo: blueprints, package: basens, channel: stable}",
      "downstream: {repo: cluster-01, package: basens}\n",
    ),
    variantDoc(
      "c2",
      "{repo: blueprints, package: basens, revision: v1}",
      "downstream: {repo: cluster-02, package: basens}\npaused: true\n",
    ),
  ].join("---\n"),
);
const pvs = variants.map((v) => v.variant);
const heldHash = variantSpecHash(pvs[0]!);
const plan = planFanout({
  variants: pvs,
  upstream: {
    blueprints: {
      basens: {
        revisions: [
          { revision: "v1", commit: "a".repeat(40) },
          { revision: "v2", commit: "b".repeat(40) },
        ],
        channelHeads: { stable: "v2" },
      },
    },
  },
  downstream: {
    c1: {
      exists: true,
      lockedRevision: "v1",
      managedBy: "c1",
      pullRequest: { number: 5, kind: "update", targetRevision: "v1", conflicts: 2 },
    },
    c2: { exists: true, lockedRevision: "v1", managedBy: "c2" },
  },
});

describe("renderDashboard", () => {
  const input: Parameters<typeof renderDashboard>[0] = {
    variants: pvs,
    plan,
    problems: [
      {
        file: ".porchlight/variants/bad.yaml",
        line: 4,
        column: 3,
        field: "spec.downstream.repo",
        message: 'unknown repository "x"',
      },
      {
        file: ".porchlight/variants/fleet.yaml",
        line: 12,
        column: 22,
        field: "spec.targets[0].template.downstream.packageExpr",
        message: 'repository.name is "other/cluster-01" here',
        severity: "warning",
      },
    ],
    pullRequestLink: (repo, n) => `[${repo}#${n}](https://github.com/acme/${repo}/pull/${n})`,
    published: (repo, pkg) => (repo === "cluster-01" && pkg === "basens" ? "v3" : undefined),
  };
  const body = renderDashboard(input);

  /** The plan for c1 alone, v2 the head of stable, its downstream locked at v1 unless `c1` says otherwise. */
  const planC1 = (c1: Partial<DownstreamPackageState>) =>
    planFanout({
      variants: pvs.slice(0, 1),
      upstream: {
        blueprints: {
          basens: { revisions: [{ revision: "v2", commit: "b".repeat(40) }], channelHeads: { stable: "v2" } },
        },
      },
      downstream: { c1: { exists: true, lockedRevision: "v1", managedBy: "c1", ...c1 } },
    });

  it("has one row per downstream with its own published revision, the upstream revision it carries, the target, the pull request and the state", () => {
    expect(body.startsWith(DASHBOARD_MARKER)).toBe(true);
    expect(body).toContain(
      "| cluster-01/basens | `c1` | blueprints/basens (stable) | v3 | v1 | v2 | [cluster-01#5](https://github.com/acme/cluster-01/pull/5) | 🔄 update pending: update v1 → v2 |",
    );
    expect(body).toContain(
      "| cluster-02/basens | `c2` | blueprints/basens v1 | — | v1 | — | — | ⏸️ paused: the variant is paused |",
    );
    expect(body).toContain(
      '- .porchlight/variants/bad.yaml:4:3: spec.downstream.repo: unknown repository "x"',
    );
    expect(body).toContain(
      '- .porchlight/variants/fleet.yaml:12:22: warning: spec.targets[0].template.downstream.packageExpr: repository.name is "other/cluster-01" here',
    );
  });

  it("says a downstream whose pull request was closed without merging is skipped, naming it", () => {
    const declined = planC1({ declined: { number: 5, targetRevision: "v2", reapply: false } });
    expect(renderDashboard({ variants: pvs, plan: declined })).toContain(
      "| cluster-01/basens | `c1` | blueprints/basens (stable) | — | v1 | v2 | #5 | ⏭️ skipped: #5 closed: #5 was closed without merging",
    );
  });

  it.each([
    { pr: { targetRevision: "v2" }, state: "⏳ waiting for approval: pull request #5 proposes" },
    {
      pr: { targetRevision: "v2", conflicts: 1 },
      state: "⚠️ held: conflicts to resolve: pull request #5 proposes",
    },
    {
      pr: { targetRevision: "v2", editedByOthers: true },
      state: "✋ held: commits by others: pull request #5 has commits from others",
    },
  ])("says why an open proposal is held: $state", ({ pr, state }) => {
    const held = planC1({ pullRequest: { number: 5, kind: "update", specHash: heldHash, ...pr } });
    expect(renderDashboard({ variants: pvs, plan: held })).toContain(` | ${state}`);
  });

  it("says a downstream is up to date once, with its revision", () => {
    const settled = planC1({ lockedRevision: "v2", specHash: heldHash });
    const board = renderDashboard({ ...input, variants: [pvs[0]!], plan: settled, problems: [] });
    expect(board).toMatch(/\| — \| ✅ up to date at v2 \|$/m);
    expect(board).not.toContain("up to date: up to date");
  });

  it("draws upstream → downstream as a Mermaid graph", () => {
    const graph = body.slice(body.indexOf("```mermaid"));
    expect(graph).toMatch(
      /graph LR\n {2}u[0-9a-f]{8}\["blueprints\/basens"\]\n {2}d[0-9a-f]{8}\["cluster-01\/basens"\]/,
    );
    expect(graph).toMatch(/u[0-9a-f]{8} -->\|"stable"\| d[0-9a-f]{8}/);
    expect(graph).toMatch(/-->\|"v1 paused"\|/);
  });

  it("is found again by its marker, and renders the same twice", () => {
    expect(isDashboardBody(body)).toBe(true);
    expect(isDashboardBody("an issue")).toBe(false);
    // A new object with the same content renders the same text.
    expect(renderDashboard({ ...input, problems: input.problems?.map((p) => ({ ...p })) })).toBe(body);
  });

  it("keeps the repositories of other installations holding downstreams in a hidden marker that parses back", () => {
    const board = renderDashboard({
      ...input,
      elsewhere: ["other/deploy-dev", "third/x", "other/deploy-dev"],
    });
    expect(board.split("\n").slice(0, 2)).toEqual([
      DASHBOARD_MARKER,
      "<!-- porchlight:downstreams other/deploy-dev third/x -->",
    ]);
    expect(parseDownstreamsMarker(board)).toEqual(["other/deploy-dev", "third/x"]);
    // None: no marker, and the body is what it was before there were any.
    expect(renderDashboard({ ...input, elsewhere: [] })).toBe(body);
    expect(parseDownstreamsMarker(body)).toEqual([]);
    expect(formatDownstreamsMarker(["not a repo", "a/b -->"])).toBe("");
  });

  it("gives a variant's row back: its target and its state, a problem's reason with its pipes", () => {
    const reason =
      "reading the upstream: `a|b` holds 8 files, more than the limit of 5 files (`packageFiles`)";
    const failed = renderDashboard({
      ...input,
      plan: {
        actions: plan.actions.map((a) =>
          a.variant === "c1"
            ? {
                kind: "skip",
                why: "problem",
                variant: "c1",
                downstream: { repo: "cluster-01", package: "basens" },
                deployed: "v1",
                target: "v2",
                reason,
              }
            : a,
        ),
      },
    });
    expect(parseDashboardRow(failed, "c1")).toEqual({
      target: "v2",
      state: `⚠️ problem: ${reason}`,
      problem: reason,
    });
    expect(parseDashboardRow(body, "c2")).toEqual({ state: "⏸️ paused: the variant is paused" });
    expect(parseDashboardRow(body, "c1")).toMatchObject({ target: "v2" });
    expect(parseDashboardRow(body, "c1")?.problem).toBeUndefined();
    expect(parseDashboardRow(body, "c3")).toBeUndefined();
    expect(parseDashboardRow(undefined, "c1")).toBeUndefined();
  });
});
