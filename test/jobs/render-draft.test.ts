import { describe, expect, it } from "vitest";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import { fakeRepoWith } from "./fake-repo.js";
import { cm, jobContext, KPTFILE } from "./helpers.js";

const BRANCH = "drafts/apps/web/edit-1";

function setup() {
  const repo = fakeRepoWith({ "README.md": "hi\n" });
  repo.branch(BRANCH, "main");
  const head = repo.commit(BRANCH, { "apps/web/Kptfile": KPTFILE, "apps/web/cm.yaml": cm("web") });
  return { repo, head, ctx: jobContext(repo) };
}

describe("render on push to a draft branch", () => {
  it("pushes one bot commit with the rendered package and annotates every result", async () => {
    const { repo, head, ctx } = setup();
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome.kind).toBe("pushed");
    const tip = repo.resolve(BRANCH);
    expect(repo.commitAuthor(tip).email).toBe("bot@porchlight.test");
    expect(repo.files(BRANCH, "apps/web")["cm.yaml"]).toMatch(/# rendered\n$/);
    expect(repo.files(BRANCH)["README.md"]).toBe("hi\n");
    const [onTip] = repo.runsOn(tip, "porchlight/render");
    expect(onTip?.conclusion).toBe("success");
    expect(onTip?.annotations).toEqual([
      expect.objectContaining({ path: "apps/web/cm.yaml", start_line: 1, annotation_level: "notice" }),
    ]);
    expect(repo.runsOn(head, "porchlight/render")[0]?.title).toContain("pushed");
  });

  it("does nothing the second time: the rendered head already has its check", async () => {
    const { repo, ctx } = setup();
    await renderDraft(ctx, { branch: BRANCH });
    const commits = repo.commits.size;
    const again = await renderDraft(ctx, { branch: BRANCH });
    expect(again.kind).toBe("skipped");
    expect(repo.commits.size).toBe(commits);
    expect(ctx.renderer.renders).toBe(1);
  });

  it("renders a proposal's head that the proposal check already found unrendered", async () => {
    const { repo, head, ctx } = setup();
    // The proposal check ran first on this push and said "differs from the rendered output".
    await repo.upsertCheckRun({
      name: "porchlight/render",
      headSha: head,
      status: "completed",
      conclusion: "failure",
      title: "1 file differs from the rendered output",
    });
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome.kind).toBe("pushed");
    expect(repo.runsOn(repo.resolve(BRANCH), "porchlight/render")[0]?.conclusion).toBe("success");
  });

  it("reports a clean head without pushing", async () => {
    const { repo, ctx } = setup();
    repo.commit(BRANCH, { "apps/web/cm.yaml": `${cm("web")}# rendered\n` });
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome.kind).toBe("clean");
    expect(repo.commitMessage(BRANCH)).toBe("edit");
  });

  it("never pushes a failed render and reports the failure at its file and line", async () => {
    const { repo, ctx } = setup();
    const head = repo.commit(BRANCH, { "apps/web/Kptfile": `${KPTFILE}fail: true\n` });
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome.kind).toBe("failed");
    expect(repo.resolve(BRANCH)).toBe(head);
    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.conclusion).toBe("failure");
    expect(run?.annotations[0]).toMatchObject({
      path: "apps/web/Kptfile",
      start_line: 2,
      annotation_level: "failure",
    });
  });

  it("renders the new head when its push loses a race (non-fast-forward)", async () => {
    const { repo, ctx } = setup();
    let raced = false;
    repo.beforePush = (branch) => {
      if (raced) return;
      raced = true;
      repo.commit(branch, { "apps/web/other.yaml": cm("other") }, "someone else");
    };
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome.kind).toBe("pushed");
    expect(ctx.renderer.renders).toBe(2);
    const files = repo.files(BRANCH, "apps/web");
    expect(files["other.yaml"]).toMatch(/# rendered\n$/);
    expect(files["cm.yaml"]).toMatch(/# rendered\n$/);
  });

  it("a branch that moves under every push: a failing check on the last head it rendered, retried at the next sweep", async () => {
    const { repo, ctx } = setup();
    const heads: string[] = [];
    repo.beforePush = (branch) => {
      heads.push(repo.resolve(branch));
      repo.commit(
        branch,
        { [`apps/web/other-${heads.length}.yaml`]: cm(`other${heads.length}`) },
        "someone else",
      );
    };
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(heads).toHaveLength(3);
    const last = heads[2] as string;
    expect(outcome).toEqual({
      kind: "failed",
      headSha: last,
      error: `the branch ${BRANCH} kept moving while porchlight rendered it; push again to retry`,
    });
    const [check] = repo.runsOn(last, "porchlight/render");
    expect(check).toMatchObject({ conclusion: "failure", title: "Rendering apps/web did not finish" });
    // not done: the next run renders the branch's head again
    repo.beforePush = undefined;
    expect((await renderDraft(ctx, { branch: BRANCH })).kind).toBe("pushed");
  });

  it("fails a draft whose package has no Kptfile", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    repo.branch("drafts/apps/none/ws", "main");
    const outcome = await renderDraft(jobContext(repo), { branch: "drafts/apps/none/ws" });
    expect(outcome).toMatchObject({ kind: "failed" });
  });

  it("ignores branches that are not drafts", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    expect((await renderDraft(jobContext(repo), { branch: "main" })).kind).toBe("skipped");
  });
});
