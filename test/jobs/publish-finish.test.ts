import { describe, expect, it } from "vitest";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { publishProposal } from "../../src/jobs/publish/index.js";
import { mergedDrafts } from "../../src/jobs/publish/merged-drafts.js";
import { reconcileRepo } from "../../src/jobs/reconcile.js";
import { DELETED_LABEL, DELETION_LABEL } from "../../src/lifecycle/labels.js";
import { formatDeletionProposal } from "../../src/lifecycle/revision-deletion.js";
import { checkedProposal, cm, PROPOSAL_BRANCH } from "./helpers.js";

const BRANCH = PROPOSAL_BRANCH;
const R = "# rendered\n";

const approve = { kind: "command", user: "bob" } as const;
const hasBranch = (repo: { refs: Map<string, string> }, b: string) => repo.refs.has(`refs/heads/${b}`);

describe("publish leaves no draft behind, and finishes after a crash", () => {
  it("deletes the draft branch once the revision is merged and tagged", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    expect(await publishProposal(ctx, { pull: pr.number, request: approve })).toMatchObject({
      kind: "published",
      tag: "apps/web/v1",
    });
    expect(hasBranch(repo, BRANCH)).toBe(false);
    expect(repo.deletedBranches).toEqual([BRANCH]);
  });

  it("a run after a crash between tagging and the branch deletion queues the fan-out again and deletes the branch", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    const merge = await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    await repo.createTag("apps/web/v1", merge);
    const outcome = await publishProposal(ctx, { pull: pr.number, request: approve });
    expect(outcome).toMatchObject({ kind: "published", tag: "apps/web/v1", revision: 1 });
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
    expect(ctx.published).toEqual([expect.objectContaining({ tag: "apps/web/v1", commit: merge })]);
    expect(hasBranch(repo, BRANCH)).toBe(false);
    // Finished: a further run changes nothing and queues nothing.
    await publishProposal(ctx, { pull: pr.number, request: approve });
    expect(ctx.published).toHaveLength(1);
    expect(repo.deletedBranches).toEqual([BRANCH]);
  });

  it("keeps a branch that moved after the merge: its new commits are a draft again", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    repo.commit(BRANCH, { "apps/web/later.yaml": cm("later") });
    await publishProposal(ctx, { pull: pr.number, request: approve });
    expect(repo.tags()["apps/web/v1"]).toBeDefined();
    expect(hasBranch(repo, BRANCH)).toBe(true);
  });

  it("never tags a merge whose package holds conflict markers (merged past the failing check), run or sweep", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    repo.commit(BRANCH, { "apps/web/README.md": "a\n<<<<<<< local\nb\n=======\nc\n>>>>>>> upstream\n" });
    const head = repo.resolve(`refs/heads/${BRANCH}`);
    await repo.mergePull(pr.number, { sha: head, method: "merge" });
    const outcome = await publishProposal(ctx, { pull: pr.number, request: approve });
    expect(outcome).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("unresolved conflict markers (`apps/web/README.md` line 2)"),
    });
    await reconcileRepo(ctx);
    expect(repo.tags()).toEqual({});
    expect(ctx.published).toEqual([]);
  });

  it("deletes the branch of an approved deletion proposal too", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    await publishProposal(ctx, { pull: pr.number, request: approve });
    repo.branch("drafts/apps/web/delete-v1", "main");
    repo.commit("drafts/apps/web/delete-v1", { "apps/web/Kptfile": null, "apps/web/cm.yaml": null });
    const del = repo.openPull("drafts/apps/web/delete-v1", { labels: [DELETION_LABEL] });
    await checkProposal(ctx, { pull: del.number });
    expect(await publishProposal(ctx, { pull: del.number, request: approve })).toMatchObject({
      kind: "deleted",
    });
    expect(hasBranch(repo, "drafts/apps/web/delete-v1")).toBe(false);
  });

  it("an approved revision deletion deletes its tag only while it points at the proposed commit, idempotently", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    await publishProposal(ctx, { pull: pr.number, request: approve });
    const tagged = repo.tags()["apps/web/v1"] as string;
    const branch = "deletionProposed/apps/web/edit-1";
    repo.branch(branch, tagged);
    repo.commit(branch, {}, "Propose deleting revision apps/web/v1");
    const proposal1 = formatDeletionProposal({
      package: "apps/web",
      workspace: "edit-1",
      revision: 1,
      commit: tagged,
    });
    const del = repo.openPull(branch, { labels: [DELETION_LABEL], body: proposal1.body });
    // it changes no file: nothing to check, and publish waits for no check
    expect(await checkProposal(ctx, { pull: del.number })).toMatchObject({ kind: "skipped" });
    const outcome = await publishProposal(ctx, { pull: del.number, request: approve });
    expect(outcome).toEqual({ kind: "deleted", package: "apps/web", mergeSha: tagged, tag: "apps/web/v1" });
    expect(repo.tags()).toEqual({});
    expect(hasBranch(repo, branch)).toBe(false);
    expect((await repo.getPull(del.number)).state).toBe("closed");
    expect((await repo.getPull(del.number)).merged).toBe(false);
    // the same request again (a redelivery) ends in the same place
    expect(await publishProposal(ctx, { pull: del.number, request: approve })).toEqual(outcome);
  });

  it("the sweep finishes a revision deletion that crashed after the tag went; a moved tag is never deleted", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    await publishProposal(ctx, { pull: pr.number, request: approve });
    const tagged = repo.tags()["apps/web/v1"] as string;
    const branch = "deletionProposed/apps/web/edit-1";
    repo.branch(branch, tagged);
    repo.commit(branch, {}, "Propose deleting revision apps/web/v1");
    const moved = formatDeletionProposal({
      package: "apps/web",
      workspace: "edit-1",
      revision: 1,
      commit: "f".repeat(40),
    });
    const stale = repo.openPull(branch, { labels: [DELETION_LABEL], body: moved.body });
    expect(await publishProposal(ctx, { pull: stale.number, request: approve })).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("no longer points at fffffff"),
    });
    expect(repo.tags()).toEqual({ "apps/web/v1": tagged });
    await repo.updatePull(stale.number, { state: "closed" });
    const body = formatDeletionProposal({
      package: "apps/web",
      workspace: "edit-1",
      revision: 1,
      commit: tagged,
    }).body;
    const del = repo.openPull(branch, { labels: [DELETION_LABEL], body });
    expect(await repo.deleteRefIf("refs/tags/apps/web/v1", tagged)).toBe("deleted");
    const result = await reconcileRepo(ctx);
    expect(result.resumed).toContain("1 revision deletion(s)");
    expect((await repo.getPull(del.number)).state).toBe("closed");
    expect(hasBranch(repo, branch)).toBe(false);
    expect((await reconcileRepo(ctx)).resumed).toEqual([]);
  });

  it("the sweep finishes a publish that crashed between the merge and the tag, and renders no merged draft", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    const other = "drafts/apps/web/other";
    repo.branch(other, "main");
    repo.commit(other, { "apps/web/o.yaml": `${cm("o")}${R}` });
    const merge = await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    const result = await reconcileRepo(ctx);
    expect(result).toMatchObject({ resumed: [`#${pr.number}`], drafts: 1, failures: [] });
    expect(repo.tags()["apps/web/v1"]).toBe(merge);
    expect(ctx.published).toEqual([expect.objectContaining({ tag: "apps/web/v1", commit: merge })]);
    expect(hasBranch(repo, BRANCH)).toBe(false);
    expect(hasBranch(repo, other)).toBe(true);
    // Settled: the next sweep asks about the remaining draft and changes nothing.
    const again = await reconcileRepo(ctx);
    expect(again).toMatchObject({ resumed: [], drafts: 1 });
    expect(ctx.published).toHaveLength(1);
  });

  it("the sweep answers the /approve and the approving review whose job died between the merge and the tag, once", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    repo.permissions.set("carol", "write");
    const asked = repo.addComment(pr.number, "Looks good.\n/approve", "bob");
    const chat = repo.addComment(pr.number, "thanks!", "alice");
    const review = repo.review(pr.number, "carol");
    const merge = await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    // The bot died here: merged, no tag, no answer.
    expect(await reconcileRepo(ctx)).toMatchObject({ resumed: [`#${pr.number}`], answered: 2, failures: [] });
    expect(repo.tags()).toEqual({ "apps/web/v1": merge });
    const replies = repo.commentsOn(pr.number).filter((c) => c.body.includes(`reply comment=${asked.id}`));
    expect(replies.map((c) => c.body)).toEqual([expect.stringContaining("`apps/web/v1`")]);
    expect(repo.commentsOn(pr.number).filter((c) => c.body.includes(`comment=${chat.id}`))).toEqual([]);
    const reviewAnswers = repo.commentsOn(pr.number).filter((c) => c.body.includes(`review=${review.id}`));
    expect(reviewAnswers.map((c) => c.body)).toEqual([expect.stringContaining("`apps/web/v1`")]);
    // Answered once: a further sweep (or the command's own job, late) adds nothing.
    const before = repo.commentsOn(pr.number).length;
    await reconcileRepo(ctx);
    expect(repo.commentsOn(pr.number)).toHaveLength(before);
    expect(ctx.published).toHaveLength(1);
  });

  it("the sweep tags a recent merge whose branch GitHub deleted at the merge, before the bot could tag", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    const merge = await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    await repo.deleteBranch(BRANCH);
    const result = await reconcileRepo(ctx);
    expect(result).toMatchObject({ resumed: [`#${pr.number}`], failures: [] });
    expect(repo.tags()).toEqual({ "apps/web/v1": merge });
    expect(ctx.published).toEqual([expect.objectContaining({ tag: "apps/web/v1", commit: merge })]);
    expect(await reconcileRepo(ctx)).toMatchObject({ resumed: [] });
    expect(ctx.published).toHaveLength(1);
  });

  it("never tags a merge older than the package's latest revision: a higher number on older content would roll it back", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    // Meanwhile another proposal of the package was published as v1 on top of that merge.
    const later = "drafts/apps/web/later";
    repo.branch(later, "main");
    repo.commit(later, { "apps/web/later.yaml": `${cm("later")}${R}` });
    const next = repo.openPull(later);
    await checkProposal(ctx, { pull: next.number });
    await publishProposal(ctx, { pull: next.number, request: approve });
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);

    const result = await reconcileRepo(ctx);
    expect(result).toMatchObject({ resumed: [], failures: [] });
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
    expect(hasBranch(repo, BRANCH)).toBe(false);
    expect(await publishProposal(ctx, { pull: pr.number, request: approve })).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("`apps/web/v1` was published after it"),
    });
  });

  it("finds the drafts left at a merged head, asking only about branches without an open proposal", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    repo.branch("drafts/apps/web/moved", "main");
    const moved = repo.openPull("drafts/apps/web/moved");
    repo.pulls.get(moved.number)!.state = "closed";
    Object.assign(repo.pulls.get(moved.number)!, { merged: true, mergeCommitSha: repo.resolve("main") });
    repo.commit("drafts/apps/web/moved", { "apps/web/more.yaml": cm("more") });
    repo.branch("drafts/apps/web/open", "main");
    repo.openPull("drafts/apps/web/open");
    const refs = await repo.listRefs();
    const openPulls = await repo.listOpenPulls();
    repo.calls.length = 0;
    const found = await mergedDrafts(repo, { refs, openPulls, baseBranch: ctx.baseBranch });
    expect(found.map((p) => p.number)).toEqual([pr.number]);
    expect(repo.calls).toEqual(["listPullsFrom", "listPullsFrom"]);
  });
});

describe("a deleted revision stays deleted (issue #67)", () => {
  /** v1 published from the proposal, then its deletion proposal (naming `commit`, default its tag's). */
  async function publishedThenProposedForDeletion(commit?: string) {
    const { repo, pr, ctx } = await checkedProposal();
    await publishProposal(ctx, { pull: pr.number, request: approve });
    const tagged = repo.tags()["apps/web/v1"] as string;
    const branch = "deletionProposed/apps/web/edit-1";
    repo.branch(branch, tagged);
    repo.commit(branch, {}, "Propose deleting revision apps/web/v1");
    const { body } = formatDeletionProposal({
      package: "apps/web",
      workspace: "edit-1",
      revision: 1,
      commit: commit ?? tagged,
    });
    const del = repo.openPull(branch, { labels: [DELETION_LABEL], body });
    return { repo, pr, ctx, del, tagged };
  }
  const labelsOf = async (repo: { getPull(n: number): Promise<{ labels: string[] }> }, n: number) =>
    (await repo.getPull(n)).labels;

  it("labels the publish deleted; sweeps and an /approve of the merged proposal never tag it again", async () => {
    const { repo, pr, ctx, del } = await publishedThenProposedForDeletion();
    expect(await publishProposal(ctx, { pull: del.number, request: approve })).toMatchObject({
      kind: "deleted",
      tag: "apps/web/v1",
    });
    expect(await labelsOf(repo, pr.number)).toContain(DELETED_LABEL);
    for (let i = 0; i < 3; i++) expect((await reconcileRepo(ctx)).resumed).toEqual([]);
    expect(repo.tags()).toEqual({});
    expect(await publishProposal(ctx, { pull: pr.number, request: approve })).toMatchObject({
      kind: "refused",
      message: expect.stringContaining(`#${pr.number} published a revision that was deleted since`),
    });
    expect(repo.tags()).toEqual({});
    expect(ctx.published).toHaveLength(1);
    // the way back: the label removed, the sweep publishes the merge again
    await repo.removeLabel(pr.number, DELETED_LABEL);
    expect((await reconcileRepo(ctx)).resumed).toEqual([`#${pr.number}`]);
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
  });

  it("a deletion the sweep finishes (the tag gone by other hands while proposed) labels the publish first", async () => {
    const { repo, pr, ctx, del, tagged } = await publishedThenProposedForDeletion();
    expect(await repo.deleteRefIf("refs/tags/apps/web/v1", tagged)).toBe("deleted");
    expect((await reconcileRepo(ctx)).resumed).toEqual(["1 revision deletion(s)"]);
    expect((await repo.getPull(del.number)).state).toBe("closed");
    expect(await labelsOf(repo, pr.number)).toContain(DELETED_LABEL);
    expect((await reconcileRepo(ctx)).resumed).toEqual([]);
    expect(repo.tags()).toEqual({});
  });

  it("a deletion refused (the tag moved since it was proposed) takes its label back", async () => {
    const { repo, pr, ctx, del, tagged } = await publishedThenProposedForDeletion();
    // the tag moved to another commit after the proposal named `tagged`
    expect(await repo.deleteRefIf("refs/tags/apps/web/v1", tagged)).toBe("deleted");
    await repo.createTag("apps/web/v1", repo.resolve("refs/heads/deletionProposed/apps/web/edit-1"));
    expect(await publishProposal(ctx, { pull: del.number, request: approve })).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("no longer points at"),
    });
    expect(await labelsOf(repo, pr.number)).not.toContain(DELETED_LABEL);
  });
});
