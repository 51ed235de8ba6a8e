import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useRpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const D = "--repository=acme/deploy";
const CONFLICT = "another request is already in progress";

/**
 * Porch's concurrent suite (test/e2e/api/concurrent_test.go), on the forge: two requests on one revision
 * or package name at the same moment, over real HTTP and git; exactly one succeeds, the other fails with
 * Porch's conflict and exit 1, and nothing is made twice.
 */
describe("concurrent requests on one revision: exactly one wins, as in Porch", () => {
  const w = useRpkgWorld();
  beforeAll(async () => {
    expect((await w.rpkg(w.alice, ["init", "base", R, "--workspace=first"])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.base.first")).code).toBe(0);
  });

  /** Runs the same command twice at once; returns the winner and the loser, checking there is one of each. */
  const race = async (args: string[], token = w.alice) => {
    const both = await Promise.all([w.rpkg(token, args), w.rpkg(w.bob, args)]);
    const won = both.filter((r) => r.code === 0);
    const lost = both.filter((r) => r.code !== 0);
    expect(won, JSON.stringify(both)).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.code).toBe(1);
    expect(lost[0]?.stderr).toContain(CONFLICT);
    return { won: won[0], lost: lost[0] };
  };
  const branches = async (repo: string) =>
    (await w.octokit(w.alice).rest.repos.listBranches({ owner: "acme", repo })).data
      .map((b) => b.name)
      .sort();
  const openPulls = async (repo: string) =>
    (await w.octokit(w.alice).rest.pulls.list({ owner: "acme", repo, state: "open" })).data.map(
      (p) => p.head.ref,
    );

  it("two inits of one package and workspace: one draft", async () => {
    const { won, lost } = await race(["init", "app", R, "--workspace=w1"]);
    expect(won?.stdout).toBe("blueprints.app.w1 created\n");
    expect(lost?.stderr).toBe(
      'Error: Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "(new creation)": another request is already in progress to create package revision with details namespace="acme", repository="blueprints", package="app",workspace="w1" \n',
    );
    expect(await branches("blueprints")).toEqual(["drafts/app/w1", "main"]);
  });

  it("two clones into one package name: one draft", async () => {
    await race(["clone", "blueprints.base.first", "web", D, "--workspace=first"]);
    expect(await branches("deploy")).toEqual(["drafts/web/first", "main"]);
  });

  it("two copies (Porch's edit) to one workspace: one draft", async () => {
    await race(["copy", "blueprints.base.first", "--workspace=second", R]);
    expect((await branches("blueprints")).filter((b) => b.startsWith("drafts/base/"))).toEqual([
      "drafts/base/second",
    ]);
  });

  it("two pushes of the same pulled resources: one lands", async () => {
    const dir = join(w.tmp, "app-w1");
    expect((await w.rpkg(w.alice, ["pull", "blueprints.app.w1", dir, R])).code).toBe(0);
    const { lost } = await race(["push", "blueprints.app.w1", dir, R]);
    expect(lost?.stderr).toContain(
      'Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "blueprints.app.w1": another request is already in progress on package revision resources "acme/blueprints.app.w1"',
    );
  });

  it("two proposals of one draft: one pull request", async () => {
    const { lost } = await race(["propose", "blueprints.base.second", R]);
    expect(lost?.stderr).toContain(
      'Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "blueprints.base.second": another request is already in progress on package revision "acme/blueprints.base.second"',
    );
    expect(await openPulls("blueprints")).toEqual(["drafts/base/second"]);
  });

  it("two approvals of one proposal: one publishes, the other is Porch's conflict", async () => {
    // the bot's checks, green on the proposal's head (no bot runs here)
    await w.greenChecks("acme/blueprints");
    const { lost } = await race(["approve", "blueprints.base.second", R]);
    expect(lost?.stderr).toContain(
      'Operation cannot be fulfilled on packagerevisions.porch.kpt.dev "blueprints.base.second": another request is already in progress',
    );
    const tags = (
      await w
        .octokit(w.alice)
        .rest.git.listMatchingRefs({ owner: "acme", repo: "blueprints", ref: "tags/base/" })
    ).data;
    expect(tags.map((t) => t.ref)).toEqual(["refs/tags/base/v1", "refs/tags/base/v2"]);
  });

  it("two deletions of one draft: one deletes", async () => {
    await race(["del", "blueprints.app.w1", R]);
    expect(await branches("blueprints")).not.toContain("drafts/app/w1");
  });

  it("two deletion proposals of one published revision: one pull request", async () => {
    await race(["propose-delete", "blueprints.base.first", R]);
    expect((await openPulls("blueprints")).sort()).toEqual(["deletionProposed/base/first"]);
  });
});
