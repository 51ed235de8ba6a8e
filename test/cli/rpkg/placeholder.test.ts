import { beforeAll, describe, expect, it } from "vitest";
import { rows, useRpkgWorld } from "./world.js";

const UP = "--repository=acme/blueprints";
const DOWN = "--repository=acme/deploy";

describe("the .main revision is a placeholder, as in Porch: no revision is made from it", () => {
  const w = useRpkgWorld();
  beforeAll(async () => {
    expect((await w.rpkg(w.alice, ["init", "app", UP, "--workspace=first"])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.app.first")).code).toBe(0);
    expect(
      (await w.rpkg(w.alice, ["clone", "blueprints.app.first", "web", DOWN, "--workspace=first"])).code,
    ).toBe(0);
    expect((await w.publish("acme/deploy", "deploy.web.first")).code).toBe(0);
  });

  const branches = async (repo: string) =>
    (await w.octokit(w.alice).rest.repos.listBranches({ owner: "acme", repo })).data.map((b) => b.name);

  it("clone from it is refused with Porch's reason, and nothing is created", async () => {
    const r = await w.rpkg(w.alice, ["clone", "blueprints.app.main", "other", DOWN, "--workspace=first"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "Error: Internal error occurred: upstream revision may not be the placeholder package revision blueprints/blueprints.app.main \n",
    });
    expect(await branches("deploy")).toEqual(["main"]);
    // what to do instead, with -v
    const hinted = await w.rpkg(w.alice, [
      "clone",
      "blueprints.app.main",
      "other",
      DOWN,
      "--workspace=first",
      "-v",
    ]);
    expect(hinted.stderr).toContain("name a published revision of app instead");
  });

  it("copy (Porch's edit) from it is refused", async () => {
    const r = await w.rpkg(w.alice, ["copy", "blueprints.app.main", "--workspace=second", UP]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "source revision may not be the placeholder package revision blueprints/blueprints.app.main",
    );
    expect(await branches("blueprints")).toEqual(["main"]);
  });

  it("upgrading it is refused, naming it", async () => {
    const r = await w.rpkg(w.alice, ["upgrade", "deploy.web.main", "--workspace=up", DOWN]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "source revision may not be the placeholder package revision deploy/deploy.web.main",
    );
    expect(rows((await w.rpkg(w.alice, ["get", DOWN])).stdout)).toEqual([
      "deploy.web.main web main -1 false Published deploy",
      "deploy.web.first web first 1 true Published deploy",
    ]);
  });

  it("upgrade --revision=-1 names the upstream's .main: refused with porchctl's and Porch's words", async () => {
    const r = await w.rpkg(w.alice, ["upgrade", "deploy.web.first", "--workspace=up", "--revision=-1", DOWN]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "Error: revision must be positive (and not main): target upstream revision may not be the placeholder package revision blueprints/blueprints.app.main \n",
    });
    const other = await w.rpkg(w.alice, [
      "upgrade",
      "deploy.web.first",
      "--workspace=up",
      "--revision=-2",
      DOWN,
    ]);
    expect(other).toMatchObject({ code: 1, stderr: "Error: revision must be positive (and not main) \n" });
    expect(await branches("deploy")).toEqual(["main"]);
  });

  it("upgrades a draft, as Porch's upgrade task does: a new draft from its files as they are", async () => {
    expect((await w.rpkg(w.alice, ["copy", "blueprints.app.first", "--workspace=second", UP])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.app.second")).code).toBe(0);
    expect(
      (await w.rpkg(w.alice, ["clone", "blueprints.app.first", "db", DOWN, "--workspace=first"])).code,
    ).toBe(0);
    const r = await w.rpkg(w.alice, ["upgrade", "deploy.db.first", "--workspace=up", DOWN]);
    expect(r).toEqual({ code: 0, stdout: "deploy.db.first upgraded to deploy.db.up\n", stderr: "" });
    expect(rows((await w.rpkg(w.alice, ["get", DOWN, "--name=db"])).stdout)).toEqual([
      "deploy.db.first db first 0 false Draft deploy",
      "deploy.db.up db up 0 false Draft deploy",
    ]);
    const kptfile = await w.rpkg(w.alice, ["get", "--show-kptfile", "deploy.db.up", DOWN]);
    expect(kptfile.stdout).toContain("ref: app/v2");
  });
});
