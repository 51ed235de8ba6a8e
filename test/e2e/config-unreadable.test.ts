import { describe, expect, it } from "vitest";
import { branchHead, checkRuns, sweep, useWorld, WEB_KPTFILE, webSettings } from "./harness.js";

/**
 * GitHub cannot serve `.github/porchlight.yml` (a 502 on every read, REST and git): porchlight must not run with a
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
    // the edit committed before git is faulted (a user's clone fetches, which the fault would refuse)
    const alice = await w.clone("alice");
    await alice.git("checkout", "--quiet", "-B", "drafts/apps/web/edit", "origin/main");
    alice.write({ "apps/web/cm.yaml": webSettings("1") });
    await alice.git("commit", "--quiet", "-am", "edit");
    const fault = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/contents/{path}",
      method: "GET",
      status: 502,
      message: "Server Error",
    });
    // the app reads its configuration by git where it can (at a commit of the default branch not read
    // before): git cannot serve it either (fetches are refused; a push is not a fetch)
    const gitFault = w.forge.faults.add({
      route: "/{owner}/{repo}.git/git-upload-pack",
      method: "POST",
      status: 502,
      message: "Server Error",
    });
    await alice.git("push", "--quiet", "origin", "HEAD:refs/heads/drafts/apps/web/edit");
    const pushed = await alice.git("rev-parse", "HEAD");
    for (let i = 0; i < 10_000; i++) {
      if (w.forge.webhooks.find("push").some((d) => (d.payload as { after?: string }).after === pushed))
        break;
      await new Promise((resolve) => setImmediate(resolve));
    }
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
    w.forge.faults.remove(gitFault);
    await sweep(w);
    const rendered = await branchHead(w, "drafts/apps/web/edit");
    expect(rendered).not.toBe(pushed);
    expect((await checkRuns(w, rendered)).find((r) => r.name === "porchlight/render")).toMatchObject({
      conclusion: "success",
    });
  });
});
