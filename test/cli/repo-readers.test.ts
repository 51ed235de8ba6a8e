import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rows, rpkgWorld } from "./rpkg/world.js";

/**
 * The first steps of a namespace, as a new user meets them: the site administrator registers the
 * organization's repositories (creating OWNER/.porchlight, private), and the people who work in those
 * repositories find the registrations with `rpkg --namespace` without asking anyone for access.
 */
describe("repository registrations are readable by whoever can read the registered repository", () => {
  let w: RpkgWorld;
  let site = "";
  let eve = "";
  const NS = "--namespace=acme";

  beforeAll(async () => {
    w = await rpkgWorld();
    site = w.forge.createUser("site", { pat: true, siteAdmin: true }).pat as string;
    eve = w.forge.createUser("eve", { pat: true }).pat as string;
  }, 60_000);
  afterAll(() => w.stop());

  it("a site administrator's register creates OWNER/.porchlight private, and the repository's readers can list it", async () => {
    // giving access is said, with whom
    expect(await w.cli(site, ["repo", "register", "acme/blueprints", NS, "--name=bp"])).toEqual({
      code: 0,
      stdout: "",
      stderr:
        'gave read access to acme/.porchlight to alice, bob, carol (they can read acme/blueprints), so that `rpkg --namespace=acme` finds registration "bp" for them\n',
    });
    const registry = await w.octokit(site).rest.repos.get({ owner: "acme", repo: ".porchlight" });
    expect(registry.data.private).toBe(true);
    // alice and bob write acme/blueprints, carol reads it: each finds the registration
    for (const token of [w.alice, w.bob, w.carol]) {
      const got = await w.cli(token, ["repo", "get", NS]);
      expect(got.code).toBe(0);
      expect(rows(got.stdout)[0]).toMatch(/^bp\s/);
    }
    expect((await w.rpkg(w.alice, ["init", "app", NS, "--repository=bp", "--workspace=ws1"])).stdout).toBe(
      "bp.app.ws1 created\n",
    );
    expect(rows((await w.rpkg(w.carol, ["get", NS])).stdout)).toEqual([
      "bp.app.ws1 app ws1 0 false Draft bp",
    ]);
    // someone who cannot read acme/blueprints is not given the registrations
    const blind = await w.rpkg(eve, ["get", NS]);
    expect(blind.code).toBe(1);
    expect(blind.stderr).toContain("namespace acme has no Repository registrations that this token can read");
  });

  it("a register by someone who cannot share OWNER/.porchlight registers, and warns who must; repo apply shares", async () => {
    const dave = w.forge.createUser("dave", { pat: true }).pat as string;
    w.forge.setPermission("acme/deploy", "dave", "read");
    // alice may write the registry (to register), but not administer it (to give others access)
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    const r = await w.cli(w.alice, ["repo", "register", "acme/deploy", NS, "--name=deploy"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "Warning: the people who can read acme/deploy could not be given read access to acme/.porchlight (",
    );
    expect(r.stderr).toContain(
      'until an administrator of acme/.porchlight gives it to them, `rpkg --namespace=acme` does not find registration "deploy" for them',
    );
    const before = await w.cli(dave, ["repo", "get", NS]);
    expect(before.stdout).toBe("");
    // the site administrator applies the registration again, changed: dave is given read access
    const yaml = (await w.cli(site, ["repo", "get", "deploy", NS, "-o", "yaml"])).stdout.replace(
      /^( {2}name: deploy\n)/m,
      "$1  labels:\n    env: dev\n",
    );
    const applied = await w.cli(site, ["repo", "apply", "-f", "-", NS], { stdin: yaml });
    expect(applied).toEqual({
      code: 0,
      stdout: "repository.config.porch.kpt.dev/deploy configured\n",
      stderr:
        'gave read access to acme/.porchlight to dave (they can read acme/deploy), so that `rpkg --namespace=acme` finds registration "deploy" for them\n',
    });
    const seen = await w.cli(dave, ["repo", "get", NS]);
    expect(seen.code).toBe(0);
    expect(rows(seen.stdout).map((l) => l.split(/\s+/)[0])).toEqual(["bp", "deploy"]);
  });

  it("a write to a repository the token may only read says who gives write access, not git's 403", async () => {
    // carol reads acme/blueprints, as everyone reads a new public repository nobody was added to
    const r = await w.rpkg(w.carol, ["init", "other", "--repository=acme/blueprints", "--workspace=ws1"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "Error: the token may read acme/blueprints but not write to it (git push was refused: HTTP 403); ask an administrator of acme/blueprints to give you write access (on GitHub: the repository's Settings → Collaborators and teams; a repository just created has no collaborators but its owners) \n",
    });
  });
});
