import { describe, expect, it } from "vitest";
import { expandPackageVariantSet } from "../../../src/variants/expand.js";
import { parseVariantFile } from "../../../src/variants/parse.js";
import { planFanout } from "../../../src/variants/plan.js";
import type {
  DownstreamPackageState,
  ManagedPackage,
  UpstreamIndex,
} from "../../../src/variants/plan-types.js";
import type { PackageVariant } from "../../../src/variants/schema.js";
import { variantSpecHash } from "../../../src/variants/tracking.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37.
 *
 * packagevariant_controller_test.go TestDeleteOrOrphan (and TestDeleteOrOrphanWS, the same cases):
 * Porch's PackageVariant is gone and its downstream PackageRevision is in some lifecycle; here the
 * variant is no longer declared and planFanout decides for the downstream it recorded (its Kptfile's
 * annotations, or its fan-out pull request). Porch's lifecycles are porchlight's: Draft — the fan-out
 * pull request open as a draft, the package never merged; Proposed — that pull request ready for review;
 * Published — the package on the downstream's base branch; DeletionProposed — a deletion pull request
 * open. Porch's client calls are the plan's actions: `deleting object` is `discard` (the pull request
 * closed and its branch deleted), `updating object` to DeletionProposed is `deletion-proposal`, nothing
 * is `nothing`, and removing the owner reference of a draft is leaving its pull request open, no longer
 * updated.
 *
 * packagevariantset_controller_test.go TestUnrollDownstreamTargets and TestEnsurePackageVariants: what a
 * set expands to (downstream, package, the generated variant's name) and what becomes of the variants it
 * no longer generates.
 */

const SHA = (n: number) => String(n).repeat(40);
const UPSTREAM: UpstreamIndex = {
  blueprints: { foo: { revisions: [{ revision: "v1", commit: SHA(1) }] } },
};

describe.each([
  ["packagevariant_controller_test.go", ""],
  ["packagevariant_controller-with-workspacename_test.go", "WS"],
])("Porch %s", (_file, ws) => {
  /** Porch's my-pv: blueprints/foo revision 1 into deployments/bar, with this adoption policy. */
  const myPv = (adoptionPolicy = "adoptNone"): PackageVariant => {
    const { variants } = parseVariantFile(
      "pv.yaml",
      `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: my-pv}\nspec:\n  upstream: {repo: blueprints, package: foo, revision: 1}\n  downstream: {repo: deployments, package: bar}\n  adoptionPolicy: ${adoptionPolicy}\n`,
    );
    return (variants[0] as { variant: PackageVariant }).variant;
  };
  /** The variant's own open pull request proposing v1 (Porch's owned Draft): the downstream not yet merged. */
  const ownDraft = (v: PackageVariant) => ({
    exists: false,
    pullRequest: {
      number: 3,
      kind: "update" as const,
      targetRevision: "v1",
      specHash: variantSpecHash(v),
      draft: true,
    },
  });
  const actionsOf = (v: PackageVariant, state?: DownstreamPackageState, managed: ManagedPackage[] = []) =>
    planFanout({ variants: [v], upstream: UPSTREAM, downstream: state ? { "my-pv": state } : {}, managed })
      .actions;

  // getDownstreamPRs lists the downstream PackageRevisions the variant owns, deleting owned drafts of a
  // package it no longer targets. Here the variant's downstream is its one branch and pull request, and
  // the packages its Kptfile annotations claim; another's draft (an unowned one) is no input at all.
  // Not translated: "one published and two drafts, all owned" (porchlight has one pull request per
  // variant, never two drafts) and "three published, latest one not owned" (owner references by UID on
  // several published revisions of one package; porchlight's package directory has one owner).
  describe(`TestGetDownstreamPRs${ws}`, () => {
    it("empty list", () => {
      expect(actionsOf(myPv())).toEqual([expect.objectContaining({ kind: "clone", variant: "my-pv" })]);
    });
    it("two drafts, one owned", () => {
      const v = myPv();
      expect(actionsOf(v, ownDraft(v))).toEqual([
        expect.objectContaining({ kind: "nothing", variant: "my-pv", pullRequest: 3 }),
      ]);
    });
    it("one published and two drafts, all owned, drafts from different package", () => {
      const v = myPv();
      const published: DownstreamPackageState = {
        exists: true,
        lockedRevision: "v1",
        managedBy: "my-pv",
        specHash: variantSpecHash(v),
      };
      const drafts: ManagedPackage = {
        repo: "deployments",
        package: "foo",
        variant: "my-pv",
        deletionPolicy: "delete",
        unpublished: true,
        pullRequest: { number: 2, kind: "update", targetRevision: "v1", draft: true },
      };
      expect(actionsOf(v, published, [drafts])).toEqual([
        expect.objectContaining({
          kind: "nothing",
          variant: "my-pv",
          downstream: { repo: "deployments", package: "bar" },
        }),
        expect.objectContaining({
          kind: "discard",
          variant: "my-pv",
          downstream: { repo: "deployments", package: "foo" },
          pullRequest: 2,
        }),
      ]);
    });
  });

  // The same listing with an adoption policy. An unowned PackageRevision of the variant's package is,
  // here, the package in the downstream made by no variant (no porchlight annotations in its Kptfile).
  describe(`TestAdoptionPolicy${ws}`, () => {
    it("owned published, unowned draft, adoptExisting", () => {
      const v = myPv("adoptExisting");
      expect(actionsOf(v, { exists: true, lockedRevision: "v1" })).toEqual([
        expect.objectContaining({
          kind: "update",
          variant: "my-pv",
          reason: expect.stringContaining("adopt bar (adoptExisting)"),
        }),
      ]);
    });
    it("two drafts, one owned, adoptNone", () => {
      const v = myPv("adoptNone");
      expect(actionsOf(v, ownDraft(v))).toEqual([
        expect.objectContaining({ kind: "nothing", variant: "my-pv", pullRequest: 3 }),
      ]);
    });
    it("unowned draft, but package name doesn't match, adoptExisting", () => {
      // deployments/foo, made by no variant, is no input: bar is cloned, foo neither adopted nor deleted.
      expect(actionsOf(myPv("adoptExisting"))).toEqual([
        expect.objectContaining({
          kind: "clone",
          variant: "my-pv",
          downstream: { repo: "deployments", package: "bar" },
        }),
      ]);
    });
  });

  describe(`TestDeleteOrOrphan${ws}`, () => {
    type Lifecycle = "Draft" | "Proposed" | "Published" | "DeletionProposed";
    /** Porch's PackageRevision `my-pr` of package bar in deployments, owned by the removed `my-pv`. */
    const downstream = (deletionPolicy: "delete" | "orphan", lifecycle: Lifecycle): ManagedPackage => ({
      repo: "deployments",
      package: "bar",
      variant: "my-pv",
      deletionPolicy,
      ...(lifecycle === "Draft" || lifecycle === "Proposed"
        ? {
            unpublished: true,
            pullRequest: { number: 7, kind: "update", targetRevision: "v1", draft: lifecycle === "Draft" },
          }
        : {}),
      ...(lifecycle === "DeletionProposed" ? { pullRequest: { number: 8, kind: "deletion" } } : {}),
    });
    const plan = (deletionPolicy: "delete" | "orphan", lifecycle: Lifecycle) =>
      planFanout({
        variants: [],
        upstream: UPSTREAM,
        downstream: {},
        managed: [downstream(deletionPolicy, lifecycle)],
      }).actions;

    it.each<[string, "delete" | "orphan", Lifecycle, object]>([
      [
        "deletionPolicy delete, lifecycle draft",
        "delete",
        "Draft",
        { kind: "discard", pullRequest: 7, branch: "porchlight/variant/bar/my-pv" },
      ],
      [
        "deletionPolicy delete, lifecycle proposed",
        "delete",
        "Proposed",
        { kind: "discard", pullRequest: 7, branch: "porchlight/variant/bar/my-pv" },
      ],
      ["deletionPolicy delete, lifecycle published", "delete", "Published", { kind: "deletion-proposal" }],
      [
        "deletionPolicy delete, lifecycle deletionProposed",
        "delete",
        "DeletionProposed",
        { kind: "nothing" },
      ],
      [
        "deletionPolicy orphan, lifecycle draft",
        "orphan",
        "Draft",
        { kind: "nothing", reason: expect.stringContaining("#7, never published, stays open") },
      ],
    ])("%s", (_go, policy, lifecycle, expected) => {
      expect(plan(policy, lifecycle)).toEqual([
        expect.objectContaining({
          variant: "my-pv",
          downstream: { repo: "deployments", package: "bar" },
          ...expected,
        }),
      ]);
    });
  });
});

function expand(targets: string, repositories: { name: string }[] = []) {
  const parsed = parseVariantFile(
    "pvs.yaml",
    `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata: {name: my-pvs}\nspec:\n  upstream: {repo: up, package: up, revision: 1}\n  targets:\n${targets}`,
  );
  expect(parsed.problems).toEqual([]);
  const [set] = parsed.sets;
  if (!set) throw new Error("no set");
  const out = expandPackageVariantSet(set, repositories);
  expect(out.problems).toEqual([]);
  return out.variants.map((v) => v.variant);
}

describe("Porch packagevariantset_controller_test.go", () => {
  // Porch's set names revision 0 (none), which its unroll step never reads; a set here must name one,
  // as Porch's own validation of the set requires: revision 1. The fake client answers the empty
  // repositorySelector with two objects, my-pod-1 and my-pod-2; here the empty selector selects every
  // repository of the installation, which are those two.
  it("TestUnrollDownstreamTargets", () => {
    const variants = expand(
      "  - repositories:\n    - {name: r1, packageNames: [p1, p2, p3]}\n    - {name: r2}\n  - repositorySelector: {}\n",
      [{ name: "my-pod-1" }, { name: "my-pod-2" }],
    );
    expect(variants.map((v) => [v.spec.downstream.repo, v.spec.downstream.package])).toEqual([
      ["r1", "p1"],
      ["r1", "p2"],
      ["r1", "p3"],
      ["r2", "up"],
      ["my-pod-1", "up"],
      ["my-pod-2", "up"],
    ]);
  });

  // Porch's fake client holds the set's variants for dnrepo1/dnpkg1 and dnrepo2/dnpkg2; the set now
  // generates dnrepo2..4. Porch deletes the first PackageVariant (whose finalizer then deletes or
  // proposes deleting its downstream), updates the second, creates the other two with these names.
  // Here the first one's downstream, recorded in its Kptfile, gets the deletion proposal, the second is
  // brought up to date, the others cloned.
  it("TestEnsurePackageVariants", () => {
    const long = "supersupersuperloooooooooooooooooooooooooooooooooooooooooooooooooongpkgname";
    const variants = expand(
      `  - repositories:\n    - {name: dnrepo2, packageNames: [dnpkg2]}\n    - {name: dnrepo3, packageNames: [dnpkg3]}\n    - {name: dnrepo4, packageNames: [${long}]}\n`,
    );
    expect(variants.map((v) => v.metadata.name)).toEqual([
      "my-pvs-dnrepo2-dnpkg2",
      "my-pvs-dnrepo3-dnpkg3",
      "my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506",
    ]);
    const [two] = variants as [PackageVariant];
    const plan = planFanout({
      variants,
      upstream: { up: { up: { revisions: [{ revision: "v1", commit: SHA(1) }] } } },
      downstream: {
        [two.metadata.name]: {
          exists: true,
          lockedRevision: "v1",
          managedBy: two.metadata.name,
          specHash: "old",
        },
      },
      managed: [
        { repo: "dnrepo1", package: "dnpkg1", variant: "my-pvs-dnrepo1-dnpkg1", deletionPolicy: "delete" },
        { repo: "dnrepo2", package: "dnpkg2", variant: two.metadata.name, deletionPolicy: "delete" },
      ],
    });
    expect(plan.actions.map((a) => [a.kind, a.variant])).toEqual([
      ["update", "my-pvs-dnrepo2-dnpkg2"],
      ["clone", "my-pvs-dnrepo3-dnpkg3"],
      ["clone", "my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506"],
      ["deletion-proposal", "my-pvs-dnrepo1-dnpkg1"],
    ]);
  });
});
