import { beforeAll, describe, expect, it } from "vitest";
import { rows, useRpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const repo = { owner: "acme", repo: "blueprints" };

describe("rpkg propose-delete and del, one revision at a time, as Porch", () => {
  const w = useRpkgWorld();
  beforeAll(async () => {
    expect((await w.rpkg(w.alice, ["init", "app", R, "--workspace=first"])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.app.first")).code).toBe(0);
    expect((await w.rpkg(w.alice, ["copy", "blueprints.app.first", "--workspace=second", R])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.app.second")).code).toBe(0);
  });

  const table = async () => rows((await w.rpkg(w.alice, ["get", R])).stdout);

  it("del of a published revision says, besides porchctl's words, which porchlight verbs delete it", async () => {
    const porchctl =
      "blueprints.app.first failed (packagerevisions.porch.kpt.dev \"blueprints.app.first\" is forbidden: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion)\n" +
      "Error: errors:\n  packagerevisions.porch.kpt.dev \"blueprints.app.first\" is forbidden: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion \n";
    // a script gets porchctl's words alone; a person at a terminal, porchlight's verbs as well
    expect((await w.rpkg(w.alice, ["del", "blueprints.app.first", R])).stderr).toBe(porchctl);
    const r = await w.rpkg(w.alice, ["del", "blueprints.app.first", R], { tty: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "blueprints.app.first failed (packagerevisions.porch.kpt.dev \"blueprints.app.first\" is forbidden: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion)\n" +
        "  with porchlight: run `porchlight rpkg propose-delete blueprints.app.first --repository acme/blueprints`, then `porchlight rpkg del` (or `rpkg approve`) the DeletionProposed revision\n" +
        "Error: errors:\n  packagerevisions.porch.kpt.dev \"blueprints.app.first\" is forbidden: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion \n",
    );
  });

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

  const gh = () => w.octokit(w.bob);
  const tags = async () =>
    (await gh().rest.git.listMatchingRefs({ ...repo, ref: "tags/app/" })).data.map((t) => t.ref);
  const branches = async () => (await gh().rest.repos.listBranches(repo)).data.map((b) => b.name);

  it("reject of a deletion proposal returns the revision to Published and drops the proposal", async () => {
    const r = await w.rpkg(w.bob, ["reject", "blueprints.app.first", R]);
    expect(r).toMatchObject({
      code: 0,
      stdout: "blueprints.app.first no longer proposed for deletion\n",
      stderr: "",
    });
    expect(await table()).toContain("blueprints.app.first app first 1 false Published blueprints");
    expect(await branches()).toEqual(["main"]);
    expect(await tags()).toEqual(["refs/tags/app/v1", "refs/tags/app/v2"]);
    const closed = (await gh().rest.pulls.list({ ...repo, state: "closed" })).data;
    expect(closed.find((p) => p.head.ref === "deletionProposed/app/first")).toMatchObject({
      merged_at: null,
    });
  });

  it("del of published revision v2 deletes its tag and nothing else; v1 is the latest again", async () => {
    expect((await w.rpkg(w.alice, ["propose-delete", "blueprints.app.second", R])).code).toBe(0);
    // the caller's approval is the approval, as Porch's; no check is waited for: the pull request changes no file
    const r = await w.rpkg(w.alice, ["del", "blueprints.app.second", R, "--timeout=0s"]);
    expect(r).toEqual({ code: 0, stdout: "blueprints.app.second deleted\n", stderr: "" });
    expect(await tags()).toEqual(["refs/tags/app/v1"]);
    expect(await table()).toEqual([
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.first app first 1 true Published blueprints",
    ]);
    const yaml = await w.rpkg(w.alice, ["get", "blueprints.app.first", R, "-o", "yaml"]);
    expect(yaml.stdout).toContain('kpt.dev/latest-revision: "true"');
    // the package stays on the branch, the proposal closed unmerged and its branch gone
    const kptfile = await gh().rest.repos.getContent({ ...repo, path: "app/Kptfile" });
    expect(kptfile.status).toBe(200);
    expect(await branches()).toEqual(["main"]);
    const pr = (await gh().rest.pulls.list({ ...repo, state: "closed" })).data.find(
      (p) => p.head.ref === "deletionProposed/app/second",
    );
    expect(pr).toMatchObject({ state: "closed", merged_at: null });
    const gone = await w.rpkg(w.alice, ["get", "blueprints.app.second", R]);
    expect(gone.code).toBe(1);
  });

  it("the .main revision: propose-delete makes it DeletionProposed, del removes the package from main only", async () => {
    const r = await w.rpkg(w.alice, ["propose-delete", "blueprints.app.main", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.main proposed for deletion\n" });
    expect(await table()).toEqual([
      "blueprints.app.main app main -1 false DeletionProposed blueprints",
      "blueprints.app.first app first 1 true Published blueprints",
    ]);
    await w.greenChecks("acme/blueprints");
    const del = await w.rpkg(w.alice, ["del", "blueprints.app.main", R]);
    expect(del).toEqual({ code: 0, stdout: "blueprints.app.main deleted\n", stderr: "" });
    expect(
      await gh()
        .rest.repos.getContent({ ...repo, path: "app/Kptfile" })
        .catch((e) => e.status),
    ).toBe(404);
    expect(await table()).toEqual(["blueprints.app.first app first 1 true Published blueprints"]);
    expect(await tags()).toEqual(["refs/tags/app/v1"]);
  });

  it("with its last revision deleted the package is gone, and can be made again under the same name", async () => {
    expect((await w.rpkg(w.alice, ["propose-delete", "blueprints.app.first", R])).code).toBe(0);
    const approved = await w.rpkg(w.bob, ["approve", "blueprints.app.first", R]);
    expect(approved).toMatchObject({ code: 0, stdout: "blueprints.app.first approved\n" });
    expect(await tags()).toEqual([]);
    expect(await table()).toEqual([]);
    const again = await w.rpkg(w.alice, ["init", "app", R, "--workspace=first"]);
    expect(again).toMatchObject({ code: 0, stdout: "blueprints.app.first created\n" });
    expect(await table()).toEqual(["blueprints.app.first app first 0 false Draft blueprints"]);
  });
  it("its tags deleted first, the .main revision is still there to delete (Porch's TestDeleteAndRecreate)", async () => {
    expect((await w.rpkg(w.alice, ["init", "web", R, "--workspace=work"])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.web.work")).code).toBe(0);
    expect((await w.rpkg(w.alice, ["propose-delete", "blueprints.web.work", R])).code).toBe(0);
    expect((await w.rpkg(w.alice, ["del", "blueprints.web.work", R])).code).toBe(0);
    expect((await table()).filter((r) => r.includes(" web "))).toEqual([
      "blueprints.web.main web main -1 false Published blueprints",
    ]);
    const r = await w.rpkg(w.alice, ["propose-delete", "blueprints.web.main", R]);
    expect(r).toEqual({ code: 0, stdout: "blueprints.web.main proposed for deletion\n", stderr: "" });
    await w.greenChecks("acme/blueprints");
    const del = await w.rpkg(w.alice, ["del", "blueprints.web.main", R]);
    expect(del).toEqual({ code: 0, stdout: "blueprints.web.main deleted\n", stderr: "" });
    expect((await table()).filter((r) => r.includes(" web "))).toEqual([]);
    const again = await w.rpkg(w.alice, ["init", "web", R, "--workspace=work"]);
    expect(again).toMatchObject({ code: 0, stdout: "blueprints.web.work created\n" });
  });
  it("del of a deletion Porch proposed itself (its deletionProposed/ branch, no pull request) deletes that tag", async () => {
    expect((await w.rpkg(w.alice, ["init", "svc", R, "--workspace=one"])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.svc.one")).code).toBe(0);
    const tag = (await gh().rest.git.getRef({ ...repo, ref: "tags/svc/v1" })).data.object.sha;
    // as Porch proposes a deletion: a branch at the revision's commit, and nothing else
    await gh().rest.git.createRef({ ...repo, ref: "refs/heads/deletionProposed/svc/one", sha: tag });
    expect((await table()).filter((r) => r.includes(" svc "))).toEqual([
      "blueprints.svc.main svc main -1 false Published blueprints",
      "blueprints.svc.one svc one 1 true DeletionProposed blueprints",
    ]);
    const del = await w.rpkg(w.alice, ["del", "blueprints.svc.one", R]);
    expect(del).toEqual({ code: 0, stdout: "blueprints.svc.one deleted\n", stderr: "" });
    const svcTags = (await gh().rest.git.listMatchingRefs({ ...repo, ref: "tags/svc/" })).data;
    expect(svcTags).toEqual([]);
    expect(await branches()).not.toContain("deletionProposed/svc/one");
    expect((await table()).filter((r) => r.includes(" svc "))).toEqual([
      "blueprints.svc.main svc main -1 false Published blueprints",
    ]);
  });
});
