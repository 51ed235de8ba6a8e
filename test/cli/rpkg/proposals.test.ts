import { beforeAll, describe, expect, it } from "vitest";
import { rows, useRpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const repo = { owner: "acme", repo: "blueprints" };

describe("rpkg propose, reject, propose-delete and copy against the forge", () => {
  const w = useRpkgWorld();
  beforeAll(async () => {
    await w.rpkg(w.alice, ["init", "app", R, "--workspace=w1"]);
  });

  const table = async () => rows((await w.rpkg(w.alice, ["get", R])).stdout);

  it("propose opens a pull request from the draft branch", async () => {
    const r = await w.rpkg(w.alice, ["propose", "blueprints.app.w1", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.w1 proposed\n" });
    expect(await table()).toEqual(["blueprints.app.w1 app w1 0 false Proposed blueprints"]);
    const { data } = await w.octokit(w.alice).rest.pulls.list({ ...repo, state: "open" });
    expect(data.map((p) => [p.head.ref, p.base.ref, p.title])).toEqual([
      ["drafts/app/w1", "main", "Propose app (w1)"],
    ]);
  });

  it("refuses to propose twice", async () => {
    const r = await w.rpkg(w.alice, ["propose", "blueprints.app.w1", R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "blueprints.app.w1 failed (cannot propose blueprints.app.w1: the revision is already Proposed)",
    );
  });

  it("reject needs write permission, and returns the proposal to draft keeping its branch", async () => {
    const denied = await w.rpkg(w.carol, ["reject", "blueprints.app.w1", R]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("needs write permission");
    const r = await w.rpkg(w.bob, ["reject", "blueprints.app.w1", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.w1 no longer proposed for approval\n" });
    expect(await table()).toEqual(["blueprints.app.w1 app w1 0 false Draft blueprints"]);
  });

  it("a rejected draft can be proposed again, then published; propose-delete proposes removing it", async () => {
    expect((await w.rpkg(w.alice, ["propose", "blueprints.app.w1", R])).code).toBe(0);
    // Publish as the bot would (merge, tag, branch gone), to test what follows on its own.
    const gh = w.octokit(w.bob);
    const [pr] = (await gh.rest.pulls.list({ ...repo, state: "open" })).data;
    const merged = await gh.rest.pulls.merge({
      ...repo,
      pull_number: pr?.number as number,
      sha: pr?.head.sha,
    });
    await gh.rest.git.createRef({ ...repo, ref: "refs/tags/app/v1", sha: merged.data.sha });
    await gh.rest.git.deleteRef({ ...repo, ref: "heads/drafts/app/w1" });
    // Merged by GitHub's button and tagged by hand: the workspace is read from GitHub's merge message.
    expect(await table()).toEqual([
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.w1 app w1 1 true Published blueprints",
    ]);

    // the package on the base branch is a revision of its own: deleting it removes the package from main
    const r = await w.rpkg(w.alice, ["propose-delete", "blueprints.app.main", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.main proposed for deletion\n" });
    expect(await table()).toEqual([
      "blueprints.app.main app main -1 false DeletionProposed blueprints",
      "blueprints.app.w1 app w1 1 true Published blueprints",
    ]);
    const open = (await gh.rest.pulls.list({ ...repo, state: "open" })).data;
    expect(open.map((p) => [p.head.ref, p.labels.map((l) => l.name)])).toEqual([
      ["drafts/app/delete-v1", ["porchlight/deletion"]],
    ]);
    const files = await gh.rest.pulls.listFiles({ ...repo, pull_number: open[0]?.number as number });
    expect(files.data.map((f) => [f.filename, f.status]).sort()).toEqual([
      ["app/Kptfile", "removed"],
      ["app/README.md", "removed"],
      ["app/package-context.yaml", "removed"],
    ]);
  });

  it("answers a second deletion proposal as porchctl does; del of it carries it out under publish's rules", async () => {
    const again = await w.rpkg(w.alice, ["propose-delete", "blueprints.app.main", R]);
    expect(again).toMatchObject({
      code: 0,
      stdout: "",
      stderr: "blueprints.app.main is already proposed for deletion\n",
    });
    // `delete` is porchctl's name for del; deleting a DeletionProposed revision merges its proposal,
    // with the checks any publish needs (the caller's own approval counts, as Porch's) — here the checks
    // have not run, so nothing is deleted.
    const del = await w.rpkg(w.alice, ["delete", "blueprints.app.main", R, "--timeout=0s"]);
    expect(del.code).toBe(1);
    expect(del.stderr).toContain("porchlight/guardrails has not run");
    expect(del.stdout).toBe("");
  });

  it("rejecting a deletion keeps the package published and removes the deletion branch", async () => {
    const r = await w.rpkg(w.bob, ["reject", "blueprints.app.main", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.main no longer proposed for deletion\n" });
    expect(await table()).toEqual([
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.w1 app w1 1 true Published blueprints",
    ]);
    const branches = (await w.octokit(w.bob).rest.repos.listBranches(repo)).data.map((b) => b.name);
    expect(branches).toEqual(["main"]);
    const del = await w.rpkg(w.alice, ["del", "blueprints.app.v1", R]);
    // porchctl's words; what to do next with -v
    expect(del.stderr).toContain("published PackageRevisions must be proposed for deletion");
    const hinted = await w.rpkg(w.alice, ["del", "blueprints.app.v1", R, "-v"]);
    expect(hinted.stderr).toContain("rpkg propose-delete blueprints.app.v1");
  });

  it("copy makes a new draft of a published revision with its files", async () => {
    const r = await w.rpkg(w.alice, ["copy", "blueprints.app.v1", "--workspace=w2", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.w2 created\n" });
    expect(await table()).toEqual([
      // the package on the base branch, as Porch lists its registered branch
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.w1 app w1 1 true Published blueprints",
      "blueprints.app.w2 app w2 0 false Draft blueprints",
    ]);
    const taken = await w.rpkg(w.alice, ["copy", "blueprints.app.v1", "--workspace=w2", R]);
    expect(taken.stderr).toContain("app already has a revision with workspace w2 in acme/blueprints");
  });

  it("an unedited copy is proposed, as Porch proposes it: the draft has its own commit", async () => {
    const r = await w.rpkg(w.alice, ["propose", "blueprints.app.w2", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.w2 proposed\n", stderr: "" });
    expect(await table()).toContain("blueprints.app.w2 app w2 0 false Proposed blueprints");
  });
});
