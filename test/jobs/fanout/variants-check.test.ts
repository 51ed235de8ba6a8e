import { describe, expect, it } from "vitest";
import { checkVariantFiles } from "../../../src/jobs/fanout/variants-check.js";
import { jobContext } from "../helpers.js";
import { FakeInstallation, publish } from "./fake-installation.js";

const GOOD = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: ok}
spec:
  upstream: {package: basens, revision: v1}
  downstream: {repo: cluster-01, package: basens}
`;

describe("porchlight/variants check", () => {
  it("annotates each problem of a pull request's variant files at its file and line", async () => {
    const inst = new FakeInstallation();
    const up = inst.add("blueprints");
    publish(up, "basens", 1, {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
    });
    inst.add("cluster-01");
    up.branch("variants", "main");
    up.commit("variants", {
      ".porchlight/variants/a.yaml": `${GOOD}---\n${GOOD.replace("name: ok", "name: bad").replace("cluster-01", "nowhere")}`,
    });
    const pr = up.openPull("variants");
    const ctx = jobContext(up);
    expect(await checkVariantFiles(ctx, inst, { pull: pr.number })).toEqual({
      kind: "checked",
      problems: 1,
      variants: 1,
    });
    const [run] = up.runsOn(pr.headSha, "porchlight/variants");
    expect(run).toMatchObject({ conclusion: "failure" });
    expect(run!.annotations).toEqual([
      expect.objectContaining({
        path: ".porchlight/variants/a.yaml",
        start_line: 13,
        message: expect.stringContaining("nowhere"),
      }),
    ]);
    expect((await checkVariantFiles(ctx, inst, { pull: pr.number })).kind).toBe("skipped");
  });
});
