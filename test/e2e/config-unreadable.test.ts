import { describe, expect, it } from "vitest";
import { branchHead, checkRuns, sweep, useWorld, WEB_KPTFILE, webSettings } from "./harness.js";

/**
 * GitHub cannot serve `.github/porchlight.yml` (a 502 on every read): porchlight must not run with a
 * configuration it did not read (the built-in defaults, or an organisation's file). It stops the
 * repository's jobs with a failing `porchlight/config` check that says why, and carries on once
 * GitHub answers again.
 */
describe("a configuration GitHub cannot serve (forge over HTTP and git)", () => {
  const w = useWorld({
    ".github/porchlight.yml": "mergeMethod: squash\n",
    "apps/web/Kptfile": WEB_KPTFILE,
    "apps/web/cm.yaml": webSettings("0"),
  });

  it("stops the draft's render with a failing porchlight/config saying why, and renders once it can read it", async () => {
    const fault = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/contents/{path}",
      method: "GET",
      status: 502,
      message: "Server Error",
    });
    const pushed = await (await w.clone("alice")).push("drafts/apps/web/edit", {
      "apps/web/cm.yaml": webSettings("1"),
    });
    await w.settle();
    expect(fault.hits).toBeGreaterThan(0);

    const runs = await checkRuns(w, pushed);
    expect(runs.map((r) => r.name)).toEqual(["porchlight/config"]);
    expect(runs[0]).toMatchObject({ conclusion: "failure" });
    expect(runs[0]!.output.summary).toContain(
      ".github/porchlight.yml:1:1: cannot be read (reading .github/porchlight.yml in acme/blueprints: Server Error (HTTP 502))",
    );
    expect(await branchHead(w, "drafts/apps/web/edit")).toBe(pushed);

    w.forge.faults.remove(fault);
    await sweep(w);
    const rendered = await branchHead(w, "drafts/apps/web/edit");
    expect(rendered).not.toBe(pushed);
    expect((await checkRuns(w, rendered)).find((r) => r.name === "porchlight/render")).toMatchObject({
      conclusion: "success",
    });
  });
});
