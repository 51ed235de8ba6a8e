import { describe, expect, it } from "vitest";
import { proposeRollback } from "../../../src/jobs/rollback/index.js";
import { fakeRepoWith } from "../fake-repo.js";
import { jobContext, KPTFILE } from "../helpers.js";

/** basens published as v1, v2 and v3, each with its own level; main holds v3. */
function published() {
  const repo = fakeRepoWith({ "basens/Kptfile": KPTFILE, "other/Kptfile": KPTFILE });
  for (const n of [1, 2, 3]) {
    const sha = repo.commit("main", {
      "basens/level.txt": `${n}\n`,
      ...(n === 2 ? { "basens/extra.txt": "x\n" } : {}),
    });
    if (n === 3) repo.commit("main", { "basens/extra.txt": null });
    repo.refs.set(`refs/tags/basens/v${n}`, n === 3 ? repo.resolve("main") : sha);
  }
  return { repo, ctx: jobContext(repo) };
}

describe("proposeRollback: a new revision with an earlier one's content", () => {
  it("proposes the package files of the revision before the latest, touching nothing else", async () => {
    const { repo, ctx } = published();
    const out = await proposeRollback(ctx, { package: "basens", requestedBy: "ana" });
    expect(out).toMatchObject({
      kind: "proposed",
      revision: 2,
      branch: "drafts/basens/rollback-v2",
      existing: false,
    });
    expect(repo.files("drafts/basens/rollback-v2", "basens")).toEqual({
      Kptfile: KPTFILE,
      "level.txt": "2\n",
      "extra.txt": "x\n",
    });
    expect(repo.files("drafts/basens/rollback-v2", "other")).toEqual(repo.files("main", "other"));
    const pr = repo.pulls.get((out as { pull: number }).pull)!;
    expect(pr).toMatchObject({ title: "Roll back basens to v2", headRef: "drafts/basens/rollback-v2" });
    expect(pr.body).toContain("as asked by @ana");
  });

  it("after a crash between the push and the pull request, opens the proposal on the same draft; then finds it", async () => {
    const { repo, ctx } = published();
    // What a run that died after its push left: the draft, no pull request.
    repo.branch("drafts/basens/rollback-v1", "main");
    repo.commit("drafts/basens/rollback-v1", { "basens/level.txt": "1\n" });
    const first = await proposeRollback(ctx, { package: "basens", toRevision: 1, requestedBy: "ana" });
    expect(first).toMatchObject({ kind: "proposed", branch: "drafts/basens/rollback-v1", existing: false });
    const again = await proposeRollback(ctx, { package: "basens", toRevision: 1, requestedBy: "ana" });
    expect(again).toMatchObject({ kind: "proposed", pull: (first as { pull: number }).pull, existing: true });
    expect([...repo.pulls.values()]).toHaveLength(1);
  });

  it("leaves a user's draft that only shares the name, and takes the next workspace", async () => {
    const { repo, ctx } = published();
    repo.branch("drafts/basens/rollback-v1", "main");
    repo.commit("drafts/basens/rollback-v1", { "basens/level.txt": "mine\n" });
    const out = await proposeRollback(ctx, { package: "basens", toRevision: 1, requestedBy: "ana" });
    expect(out).toMatchObject({ kind: "proposed", branch: "drafts/basens/rollback-v1-2" });
    expect(repo.files("drafts/basens/rollback-v1", "basens")["level.txt"]).toBe("mine\n");
  });

  it.each<[string, number | undefined, string]>([
    ["the latest revision", 3, "v3 is basens's latest revision already; name an earlier one, like `v2`."],
    ["a revision never published", 7, "basens has no published revision v7 (published: v1, v2, v3)."],
  ])("refuses %s", async (_what, toRevision, reason) => {
    const { ctx } = published();
    expect(
      await proposeRollback(ctx, {
        package: "basens",
        ...(toRevision ? { toRevision } : {}),
        requestedBy: "ana",
      }),
    ).toEqual({ kind: "refused", reason });
  });

  it("refuses a package with one revision, and one never published", async () => {
    const { repo, ctx } = published();
    expect(await proposeRollback(ctx, { package: "other", requestedBy: "ana" })).toEqual({
      kind: "refused",
      reason: "other has no published revision to roll back to.",
    });
    repo.refs.set("refs/tags/other/v1", repo.resolve("main"));
    expect(await proposeRollback(ctx, { package: "other", requestedBy: "ana" })).toEqual({
      kind: "refused",
      reason: "other has one published revision, v1: there is no earlier one to roll back to.",
    });
  });
});
