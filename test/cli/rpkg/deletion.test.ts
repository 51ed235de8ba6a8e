import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rows, rpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const repo = { owner: "acme", repo: "blueprints" };

describe("rpkg propose-delete and del, one revision at a time, as Porch", () => {
  let w: RpkgWorld;
  beforeAll(async () => {
    w = await rpkgWorld();
    expect((await w.rpkg(w.alice, ["init", "app", R, "--workspace=first"])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.app.first")).code).toBe(0);
    expect((await w.rpkg(w.alice, ["copy", "blueprints.app.first", "--workspace=second", R])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.app.second")).code).toBe(0);
  });
  afterAll(async () => {
    await w.stop();
  });

  const table = async () => rows((await w.rpkg(w.alice, ["get", R])).stdout);

  it("proposes deleting the revision it names, listed under that revision's name", async () => {
    const r = await w.rpkg(w.alice, ["propose-delete", "blueprints.app.first", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.first proposed for deletion\n", stderr: "" });
    expect(await table()).toEqual([
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.first app first 1 false DeletionProposed blueprints",
      "blueprints.app.second app second 2 true Published blueprints",
    ]);
    // the pull request names the one tag, and removes no file of the package
    const gh = w.octokit(w.alice);
    const open = (await gh.rest.pulls.list({ ...repo, state: "open" })).data;
    expect(open.map((p) => [p.head.ref, p.title, p.labels.map((l) => l.name)])).toEqual([
      ["deletionProposed/app/first", "Delete revision app/v1 (first)", ["porchlight/deletion"]],
    ]);
    const files = await gh.rest.pulls.listFiles({ ...repo, pull_number: open[0]?.number as number });
    expect(files.data).toEqual([]);
  });
});
