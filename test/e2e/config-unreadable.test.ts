import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "./harness.js";

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: web
pipeline:
  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
      configMap:
        team: web
`;
const cm = (v: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  v: "${v}"
`;

/**
 * GitHub cannot serve `.github/porchlight.yml` (a 502 on every read): porchlight must not run with a
 * configuration it did not read (the built-in defaults, or an organisation's file). It stops the
 * repository's jobs with a failing `porchlight/config` check that says why, and carries on once
 * GitHub answers again.
 */
describe("a configuration GitHub cannot serve (forge over HTTP and git)", () => {
  let w: World;
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;
  const checks = async (ref: string) =>
    (await rest().checks.listForRef({ owner, repo, ref })).data.check_runs;
  const head = async (branch: string) =>
    (await rest().git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;

  beforeAll(async () => {
    w = await startWorld({
      "README.md": "# blueprints\n",
      ".github/porchlight.yml": "mergeMethod: squash\n",
      "apps/web/Kptfile": KPTFILE,
      "apps/web/cm.yaml": cm("0"),
    });
  });
  afterAll(async () => {
    await w?.stop();
  });

  it("stops the draft's render with a failing porchlight/config saying why, and renders once it can read it", async () => {
    const fault = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/contents/{path}",
      method: "GET",
      status: 502,
      message: "Server Error",
    });
    const pushed = await (await w.clone("alice")).push("drafts/apps/web/edit", {
      "apps/web/cm.yaml": cm("1"),
    });
    await w.settle();
    expect(fault.hits).toBeGreaterThan(0);

    const runs = await checks(pushed);
    expect(runs.map((r) => r.name)).toEqual(["porchlight/config"]);
    expect(runs[0]).toMatchObject({ conclusion: "failure" });
    expect(runs[0]!.output.summary).toContain(
      ".github/porchlight.yml:1:1: cannot be read (reading .github/porchlight.yml in acme/blueprints: Server Error (HTTP 502))",
    );
    expect(await head("drafts/apps/web/edit")).toBe(pushed);

    w.forge.faults.remove(fault);
    await w.app.sweep();
    await w.settle();
    const rendered = await head("drafts/apps/web/edit");
    expect(rendered).not.toBe(pushed);
    expect((await checks(rendered)).find((r) => r.name === "porchlight/render")).toMatchObject({
      conclusion: "success",
    });
  });
});
