import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, effectiveLimits } from "../../../src/config/limits.js";
import { reconcileFanout } from "../../../src/jobs/fanout/index.js";
import { KptRenderer } from "../../../src/jobs/kpt-renderer/index.js";
import { parseDashboardRow } from "../../../src/variants/index.js";
import { configMap, kptfile, packageVariant } from "../../util/krm.js";
import { FakeInstallation, fanoutContext, publish } from "./fake-installation.js";

/** blueprints publishing `basens` v1 with `files`, and a variant cloning it into cluster-01. */
function world(files: Record<string, string>) {
  const inst = new FakeInstallation();
  const up = inst.add("blueprints", {
    ".porchlight/variants/basens.yaml": packageVariant({
      name: "basens-01",
      upstream: "basens",
      revision: "v1",
      repo: "cluster-01",
    }),
  });
  publish(up, "basens", 1, { Kptfile: kptfile("basens"), ...files });
  const down = inst.add("cluster-01");
  return { up, down, ctx: fanoutContext(inst) };
}

/**
 * Fan-out holds a git upstream to the package limits before it builds or pushes anything, as it holds an
 * image or a tarball: the variant's dashboard row is a problem naming the limit and the setting, with the
 * revision it could not bring; the downstream gets no branch and no pull request.
 */
describe("fan-out of a git upstream within the package limits", () => {
  it("refuses a revision over packageBytes, counted from the git tree before a file is read", async () => {
    const w = world({ "big.yaml": configMap("big", { blob: "x".repeat(10_000) }) });
    const limits = effectiveLimits(DEFAULT_LIMITS, { packageBytes: 4096 });
    const report = await reconcileFanout({ ...w.ctx, limits }, "blueprints");
    expect(report.failures).toEqual([
      {
        variant: "basens-01",
        error: expect.stringMatching(
          /^reading the upstream acme\/blueprints at basens\/v1: `basens`: holds 10,\d{3} bytes, more than the limit of 4,096 bytes per package \(`packageBytes`\); split the package into smaller ones, or this repository set it: raise `limits.packageBytes` in \.github\/porchlight\.yml; nothing was pushed$/,
        ),
      },
    ]);
    expect([...w.down.refs.keys()].filter((r) => r.startsWith("refs/heads/"))).toEqual(["refs/heads/main"]);
    expect(w.down.pulls.size).toBe(0);
    expect(parseDashboardRow(w.up.issues[0]?.body, "basens-01")).toEqual({
      target: "v1",
      state: `⚠️ problem: ${report.failures[0]?.error}`,
      problem: report.failures[0]?.error,
    });
    // Nothing was rendered: the refusal came before the package was built.
    expect(w.ctx.renderer.renders).toBe(0);
  });

  it("refuses a downstream over packageResources when rendering it, before anything is pushed", async () => {
    const w = world(Object.fromEntries([1, 2, 3].map((i) => [`cm-${i}.yaml`, configMap(`cm-${i}`, {})])));
    const limits = effectiveLimits(DEFAULT_LIMITS, { packageResources: 2 });
    const report = await reconcileFanout({ ...w.ctx, renderer: new KptRenderer(), limits }, "blueprints");
    expect(report.failures).toEqual([
      {
        variant: "basens-01",
        error:
          "rendering cluster-01/basens: `cluster-01/basens`: holds 3 resources, more than the limit of 2 resources per package (`packageResources`); split the package into smaller ones, or this repository set it: raise `limits.packageResources` in .github/porchlight.yml; nothing was pushed",
      },
    ]);
    expect(w.down.pulls.size).toBe(0);
  });

  it("clones a revision exactly at the limits", async () => {
    const w = world({ "cm.yaml": configMap("settings", { a: "1" }) });
    const limits = effectiveLimits(DEFAULT_LIMITS, { packageFiles: 2, packageResources: 1 });
    const report = await reconcileFanout({ ...w.ctx, renderer: new KptRenderer(), limits }, "blueprints");
    expect(report.failures).toEqual([]);
    expect(w.down.pulls.size).toBe(1);
  });
});
