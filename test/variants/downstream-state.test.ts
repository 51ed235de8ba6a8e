import { describe, expect, it } from "vitest";
import { downstreamState, managedPackage, readKptfileFacts } from "../../src/variants/downstream-state.js";
import { applyVariantMutations } from "../../src/variants/mutations.js";
import { parseVariantFile } from "../../src/variants/parse.js";
import { planFanout } from "../../src/variants/plan.js";
import type { PackageVariant } from "../../src/variants/schema.js";
import { codeBlock } from "../util/codeblock.js";
import { variantDoc } from "../util/krm.js";

const KPTFILE = codeBlock`
  apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: basens
  upstream:
    type: git
    git: {repo: https://github.com/acme/blueprints, directory: /basens, ref: basens/v2}
  upstreamLock:
    type: git
    git: {repo: https://github.com/acme/blueprints, directory: /basens, ref: basens/v2, commit: 2222222}
`;

describe("reading a downstream back", () => {
  it.each([
    ["basens/v2", "v2"],
    ["v7", "v7"],
    ["drafts/basens/ws1", undefined],
    ["main", undefined],
  ])("takes revision %s from upstreamLock ref as %s", (ref, revision) => {
    expect(
      readKptfileFacts(KPTFILE.replace("ref: basens/v2, commit", `ref: ${ref}, commit`)).lockedRevision,
    ).toBe(revision);
  });

  it("reads only the parts of the shape it knows, and nothing of a part of another shape", () => {
    expect(readKptfileFacts("- a list\n")).toEqual({});
    expect(
      readKptfileFacts(
        "upstreamLock: [basens/v2]\nmetadata:\n  annotations:\n    porchlight.dev/package-variant: [c1]\n",
      ),
    ).toEqual({});
    expect(
      readKptfileFacts("upstreamLock:\n  git: {ref: 7, commit: abc}\nmetadata: {annotations: managed}\n"),
    ).toEqual({ lockedCommit: "abc" });
  });

  it("converges: after the variant is applied at the target, the plan is nothing", () => {
    const text = variantDoc(
      "c1",
      "{repo: blueprints, package: basens, revision: v2}",
      codeBlock`
        downstream: {repo: cluster-01, package: basens}
        deletionPolicy: orphan
        pipeline:
          mutators: [{image: set-namespace:v0.4, configMap: {namespace: a}}]
    `,
    );
    const variant = parseVariantFile("v.yaml", text).variants[0]?.variant as PackageVariant;
    const upstream = { blueprints: { basens: { revisions: [{ revision: "v2", commit: "2".repeat(40) }] } } };

    const before = planFanout({
      variants: [variant],
      upstream,
      downstream: { c1: downstreamState(undefined) },
    });
    expect(before.actions[0]?.kind).toBe("clone");

    const cloned = applyVariantMutations(new Map([["Kptfile", KPTFILE]]), variant, [], { mode: "clone" });
    const kptfile = cloned.files.get("Kptfile") as string;
    const after = planFanout({ variants: [variant], upstream, downstream: { c1: downstreamState(kptfile) } });
    expect(after.actions).toEqual([expect.objectContaining({ kind: "nothing", reason: "up to date at v2" })]);
    expect(managedPackage("cluster-01", "basens", kptfile)).toEqual({
      repo: "cluster-01",
      package: "basens",
      variant: "c1",
      deletionPolicy: "orphan",
    });
    expect(managedPackage("cluster-01", "basens", KPTFILE)).toBeUndefined();
  });
});
