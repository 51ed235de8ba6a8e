import { describe, expect, it } from "vitest";
import type { PullRequest } from "../../../src/github/port.js";
import type { ManagementRepo, VariantDocument } from "../../../src/porchapi/registry/variant-files.js";
import { packageVariantStatus, type StatusReader } from "../../../src/porchapi/registry/variant-status.js";
import { formatRefusalMarker } from "../../../src/variants/upstream-refusal.js";

const repo = { full: "acme/blueprints" } as ManagementRepo;

/** PackageVariant `steal` of acme/blueprints' variant files, with `spec` as written. */
const doc = (spec: Record<string, unknown>): VariantDocument => ({
  repo,
  path: "steal.yaml",
  index: 0,
  kind: "PackageVariant",
  name: "steal",
  data: {
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    metadata: { name: "steal" },
    spec,
  },
});

const SPEC = {
  upstream: { repo: "hidden", package: "topsecret", revision: 1 },
  downstream: { repo: "stolen", package: "topsecret" },
};

/** A reader of a world where the dashboard's body is `dashboard`, no pull request is open, v1 is published. */
const reader = (dashboard: string): StatusReader => ({
  pullsFrom: async () => [] as PullRequest[],
  registrationOf: (full) => full.split("/")[1] ?? full,
  repositoryOf: () => undefined,
  publishedOf: async () => [1],
  workspaceOf: async (_f, _p, variant) => variant,
  dashboardOf: async () => dashboard,
});

const refusedBoard = `<!-- porchlight:dashboard -->\n${formatRefusalMarker("steal", {
  kind: "unreadable",
  upstream: "acme/hidden",
  management: "acme/blueprints",
  writer: "alice",
})}\n`;

const reasons = (status: Record<string, unknown>) =>
  (status.conditions as { type: string; status: string; reason: string }[]).map((c) => [
    c.type,
    c.status,
    c.reason,
  ]);

describe("a PackageVariant's status when fan-out refused its upstream", () => {
  it("is Stalled and not Ready, UpstreamNotAllowed, naming the upstream, the writer and what to do", async () => {
    const status = await packageVariantStatus(doc(SPEC), [], reader(refusedBoard));
    expect(reasons(status)).toEqual([
      ["Stalled", "True", "UpstreamNotAllowed"],
      ["Ready", "False", "UpstreamNotAllowed"],
    ]);
    const [, ready] = status.conditions as { message: string }[];
    expect(ready?.message).toContain("acme/hidden is private and alice");
    expect(ready?.message).toContain("give alice (and every other writer of acme/blueprints) read access");
  });

  it("says so of a paused variant too: resuming it would not fan it out", async () => {
    const status = await packageVariantStatus(doc({ ...SPEC, paused: true }), [], reader(refusedBoard));
    expect(reasons(status)[1]).toEqual(["Ready", "False", "UpstreamNotAllowed"]);
  });

  it.each([
    [
      "the variant names another upstream since",
      { ...SPEC, upstream: { repo: "public", package: "topsecret" } },
    ],
    ["the variant names its own repository's package", { ...SPEC, upstream: { package: "topsecret" } }],
  ])("holds a variant to no old verdict when %s: Pending, as before", async (_, spec) => {
    const status = await packageVariantStatus(doc(spec), [], reader(refusedBoard));
    expect(reasons(status)).toEqual([
      ["Stalled", "False", "Valid"],
      ["Ready", "False", "Pending"],
    ]);
  });

  it("is Pending, as before, when the dashboard records no refusal", async () => {
    const status = await packageVariantStatus(doc(SPEC), [], reader("<!-- porchlight:dashboard -->\n"));
    expect(reasons(status)).toEqual([
      ["Stalled", "False", "Valid"],
      ["Ready", "False", "Pending"],
    ]);
  });
});
