import { beforeAll, describe, expect, it } from "vitest";
import { rows, useRpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const repo = { owner: "acme", repo: "blueprints" };

describe("rpkg approve publishes through the bot's publish job", () => {
  const w = useRpkgWorld();
  beforeAll(async () => {
    await w.rpkg(w.alice, ["init", "app", R, "--workspace=w1"]);
  });

  it("refuses a draft, naming propose", async () => {
    const r = await w.rpkg(w.bob, ["approve", "blueprints.app.w1", R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("propose it first with `porchlight rpkg propose blueprints.app.w1");
  });

  it("refuses once its --timeout has passed with the required checks not run, saying which", async () => {
    await w.rpkg(w.alice, ["propose", "blueprints.app.w1", R]);
    const r = await w.rpkg(w.alice, ["approve", "blueprints.app.w1", R, "--timeout=0s"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("porchlight/render has not run on");
    expect(r.stderr).toContain("porchlight/guardrails has not run on");
    expect((await w.rpkg(w.alice, ["approve", "blueprints.app.w1", R, "--timeout=soon"])).code).toBe(2);
  });

  it("waits for the head's checks, as porchctl's approve is synchronous; with requiredApprovals set, the author's approval does not count", async () => {
    // the repository asks for reviews by others: its configuration sets requiredApprovals
    const gh = w.octokit(w.alice);
    const main = (await gh.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
    const base = (await gh.rest.git.getCommit({ ...repo, commit_sha: main })).data.tree.sha;
    const tree = await gh.rest.git.createTree({
      ...repo,
      base_tree: base,
      tree: [
        { path: ".github/porchlight.yml", mode: "100644", type: "blob", content: "requiredApprovals: 1\n" },
      ],
    });
    const commit = await gh.rest.git.createCommit({
      ...repo,
      message: "reviews by others",
      tree: tree.data.sha,
      parents: [main],
    });
    await gh.rest.git.updateRef({ ...repo, ref: "heads/main", sha: commit.data.sha });
    // approve runs before the bot has checked the head; the checks complete while it waits.
    const approving = w.rpkg(w.alice, ["approve", "blueprints.app.w1", R]);
    await w.greenChecks("acme/blueprints");
    const r = await approving;
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("has not run");
    expect(r.stderr).toMatch(/other than the author/);
  });

  it("the caller's approval is the approval, their own proposal's too, as in Porch, where the configuration leaves requiredApprovals unset", async () => {
    const D = "--repository=acme/deploy";
    await w.rpkg(w.alice, ["init", "base", D, "--workspace=first"]);
    await w.rpkg(w.alice, ["propose", "deploy.base.first", D]);
    await w.greenChecks("acme/deploy");
    const r = await w.rpkg(w.alice, ["approve", "deploy.base.first", D]);
    expect(r).toEqual({ code: 0, stdout: "deploy.base.first approved\n", stderr: "" });
    expect(rows((await w.rpkg(w.alice, ["get", D, "deploy.base.first"])).stdout)).toEqual([
      "deploy.base.first base first 1 true Published deploy",
    ]);
  });

  it("a writer's approval merges the reviewed head and tags the next revision; the name stays", async () => {
    const r = await w.rpkg(w.bob, ["approve", "blueprints.app.w1", R, "-v"]);
    expect(r.stderr).not.toContain("failed");
    // porchctl's output; the revision and tag go with the progress (-v, or a terminal).
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.w1 approved\n" });
    expect(r.stderr).toContain("revision 1, tag app/v1");
    const gh = w.octokit(w.bob);
    const tag = await gh.rest.git.getRef({ ...repo, ref: "tags/app/v1" });
    const main = await gh.rest.git.getRef({ ...repo, ref: "heads/main" });
    expect(tag.data.object.sha).toBe(main.data.object.sha);
    const reviews = await gh.rest.pulls.listReviews({ ...repo, pull_number: 1 });
    expect(reviews.data.map((x) => [x.user?.login, x.state])).toEqual([["bob", "APPROVED"]]);
    // Porch's name for life: the published revision is still blueprints.app.w1, found from git alone.
    expect(rows((await w.rpkg(w.alice, ["get", R, "--revision=1"])).stdout)).toEqual([
      "blueprints.app.w1 app w1 1 true Published blueprints",
    ]);
    const merge = await gh.rest.git.getCommit({ ...repo, commit_sha: main.data.object.sha });
    expect(merge.data.message).toContain('kpt:{"package":"app","workspaceName":"w1"}');
  });

  it("approving the deletion of the .main revision removes the package from main; its revision stays", async () => {
    expect((await w.rpkg(w.alice, ["propose-delete", "blueprints.app.main", R])).code).toBe(0);
    await w.greenChecks("acme/blueprints");
    const r = await w.rpkg(w.bob, ["approve", "blueprints.app.main", R]);
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.app.main approved\n" });
    const gone = await w
      .octokit(w.bob)
      .rest.repos.getContent({ ...repo, path: "app/Kptfile" })
      .catch((e) => e.status);
    expect(gone).toBe(404);
    // As in Porch: the package is gone from the branch; its published revision, a tag, is still listed.
    expect(rows((await w.rpkg(w.alice, ["get", R])).stdout)).toEqual([
      "blueprints.app.w1 app w1 1 true Published blueprints",
    ]);
    const tags = await w.octokit(w.bob).rest.git.listMatchingRefs({ ...repo, ref: "tags/app/" });
    expect(tags.data.map((t) => t.ref)).toEqual(["refs/tags/app/v1"]);
  });

  it("after waiting for the checks, reads the pull request again but not the check runs the wait has just read", async () => {
    await w.rpkg(w.alice, ["init", "web", R, "--workspace=w1"]);
    await w.rpkg(w.alice, ["propose", "blueprints.web.w1", R]);
    const from = w.forge.requestLog.entries.length;
    const bobs = () =>
      w.forge.requestLog.entries
        .slice(from)
        .filter((e) => e.login === "bob" && e.method === "GET")
        .map((e) => e.route);
    const approving = w.rpkg(w.bob, ["approve", "blueprints.web.w1", R]);
    // the checks complete once approve has looked at them
    while (!bobs().includes("/repos/{owner}/{repo}/commits/{ref}/check-runs"))
      await new Promise((r) => setTimeout(r, 10));
    await w.greenChecks("acme/blueprints");
    expect(await approving).toMatchObject({ code: 0, stdout: "blueprints.web.w1 approved\n" });
    const asked = bobs();
    const checks = asked.filter((r) => r === "/repos/{owner}/{repo}/commits/{ref}/check-runs").length;
    // it looked at least twice (the checks had not run at first), and asked for the pull request after
    expect(checks).toBeGreaterThanOrEqual(2);
    expect(asked.lastIndexOf("/repos/{owner}/{repo}/pulls/{pull_number}")).toBeGreaterThan(
      asked.lastIndexOf("/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    );
    expect((await w.octokit(w.bob).rest.git.getRef({ ...repo, ref: "tags/web/v1" })).status).toBe(200);
  });
});
