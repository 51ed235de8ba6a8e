import { describe, expect, it } from "vitest";
import { MergeRefused } from "../../src/github/errors.js";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { publishProposal } from "../../src/jobs/publish/index.js";
import { onReview } from "../../src/jobs/publish/on-review.js";
import { ensureRevisionTag } from "../../src/jobs/publish/tag.js";
import { fakeRepoWith } from "./fake-repo.js";
import { checkedProposal, cm, KPTFILE, PROPOSAL_BRANCH } from "./helpers.js";

const BRANCH = PROPOSAL_BRANCH;
const R = "# rendered\n";

const proposal = checkedProposal;

describe("publish", () => {
  it("merges the reviewed head, tags v1 on the merge commit, comments and queues its fan-out", async () => {
    const { repo, pr, ctx } = await proposal();
    const review = repo.review(pr.number, "bob");
    const outcome = await onReview(ctx, {
      pull: pr.number,
      reviewId: review.id,
      user: "bob",
      state: "approved",
      commitId: pr.headSha,
    });
    expect(outcome).toMatchObject({ kind: "published", tag: "apps/web/v1", revision: 1 });
    const merged = repo.pulls.get(pr.number);
    expect(merged?.merged).toBe(true);
    expect(repo.tags()["apps/web/v1"]).toBe(merged?.mergeCommitSha);
    expect(repo.commentsOn(pr.number).at(-1)?.body).toContain("apps/web/v1");
    expect(ctx.published).toEqual([
      { repo: repo.id, package: "apps/web", revision: 1, tag: "apps/web/v1", commit: merged?.mergeCommitSha },
    ]);
  });

  it("does the same once when the review arrives three times", async () => {
    const { repo, pr, ctx } = await proposal();
    const review = repo.review(pr.number, "bob");
    const input = {
      pull: pr.number,
      reviewId: review.id,
      user: "bob",
      state: "approved",
      commitId: pr.headSha,
    };
    for (let i = 0; i < 3; i++) await onReview(ctx, input);
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
    expect(repo.commentsOn(pr.number).filter((c) => c.body.includes("review="))).toHaveLength(1);
    expect(ctx.published).toHaveLength(1);
  });

  it("refuses a review of an older head", async () => {
    const { repo, pr, ctx } = await proposal();
    const review = repo.review(pr.number, "bob");
    const reviewed = pr.headSha;
    repo.commit(BRANCH, { "apps/web/late.yaml": `${cm("late")}${R}` });
    await checkProposal(ctx, { pull: pr.number });
    const outcome = await onReview(ctx, {
      pull: pr.number,
      reviewId: review.id,
      user: "bob",
      state: "approved",
      commitId: reviewed,
    });
    expect(outcome).toMatchObject({ kind: "refused", message: expect.stringContaining("newer push") });
    expect(repo.pulls.get(pr.number)?.merged).toBe(false);
  });

  it("decides on the pull request its review's event carried, without reading it again", async () => {
    const { repo, pr, ctx } = await proposal();
    const review = repo.review(pr.number, "bob");
    const seen = { ...pr };
    repo.calls.length = 0;
    const outcome = await onReview(ctx, {
      pull: pr.number,
      reviewId: review.id,
      user: "bob",
      state: "approved",
      commitId: pr.headSha,
      seen,
    });
    expect(outcome).toMatchObject({ kind: "published", tag: "apps/web/v1" });
    expect(repo.calls).not.toContain("getPull");
  });

  it("a review's event that is stale by the time its job runs publishes nothing it should not", async () => {
    // the head moved since the review's event: the merge names the head decided on, GitHub refuses it
    const moved = await proposal();
    const review = moved.repo.review(moved.pr.number, "bob");
    const seen = { ...moved.pr };
    moved.repo.commit(BRANCH, { "apps/web/late.yaml": `${cm("late")}${R}` });
    const outcome = await onReview(moved.ctx, {
      pull: seen.number,
      reviewId: review.id,
      user: "bob",
      state: "approved",
      commitId: seen.headSha,
      seen,
    });
    expect(outcome).toMatchObject({ kind: "refused", message: expect.stringContaining("head moved") });
    expect(moved.repo.pulls.get(seen.number)?.merged).toBe(false);
    // closed since: said as a closed pull request is, not as a conflict to resolve
    const closed = await proposal();
    const second = closed.repo.review(closed.pr.number, "bob");
    const before = { ...closed.pr };
    await closed.repo.updatePull(before.number, { state: "closed" });
    const refused = await onReview(closed.ctx, {
      pull: before.number,
      reviewId: second.id,
      user: "bob",
      state: "approved",
      commitId: before.headSha,
      seen: before,
    });
    expect(refused).toMatchObject({
      kind: "refused",
      message: "Not published: this pull request is closed; reopen it to propose the revision again.",
    });
    expect(closed.repo.pulls.get(before.number)?.merged).toBe(false);
  });

  it("refuses a reader and a proposal whose checks are not green", async () => {
    const { repo, pr, ctx } = await proposal();
    expect(
      await publishProposal(ctx, { pull: pr.number, request: { kind: "command", user: "rita" } }),
    ).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("write permission"),
    });
    repo.checkRuns.find((r) => r.name === "porchlight/guardrails")!.conclusion = "failure";
    expect(
      await publishProposal(ctx, { pull: pr.number, request: { kind: "command", user: "bob" } }),
    ).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("porchlight/guardrails is not green"),
    });
  });

  it("refuses when the head moves between the decision and the merge", async () => {
    const { repo, pr, ctx } = await proposal();
    const merge = repo.mergePull.bind(repo);
    repo.mergePull = async (n, input) => {
      repo.commit(BRANCH, { "apps/web/race.yaml": "x\n" });
      return merge(n, input);
    };
    const outcome = await publishProposal(ctx, {
      pull: pr.number,
      request: { kind: "command", user: "bob" },
    });
    expect(outcome).toMatchObject({ kind: "refused", message: expect.stringContaining("head moved") });
  });

  it.each([
    [
      "method-not-allowed",
      "Merge commits are not allowed on this repository.",
      "Not published: this repository does not allow merge merges (Merge commits are not allowed on this repository.); set `mergeMethod` in `.github/porchlight.yml` to one it allows and approve again.",
    ],
    [
      "protected",
      "At least 1 approving review is required by reviewers with write access.",
      "Not published: GitHub refused the merge (At least 1 approving review is required by reviewers with write access.): the rules of `main` ask for that first; approve again once they are met.",
    ],
    [
      "not-mergeable",
      "Pull Request is not mergeable",
      "Not published: GitHub cannot merge this pull request (Pull Request is not mergeable). Resolve conflicts with `main` and approve again.",
    ],
  ] as const)(
    "a merge GitHub refuses (%s) is refused with GitHub's reason and what to do; nothing is tagged",
    async (kind, github, message) => {
      const { repo, pr, ctx } = await proposal();
      repo.refuseMerge = new MergeRefused(`merging pull request #${pr.number}: ${github} (HTTP 405)`, {
        kind,
        github,
      });
      // GitHub's pull request says it conflicts (mergeable: false) when it is not mergeable
      const live = repo.pulls.get(pr.number);
      if (live && kind === "not-mergeable") live.mergeable = false;
      const outcome = await publishProposal(ctx, {
        pull: pr.number,
        request: { kind: "command", user: "bob" },
      });
      expect(outcome).toEqual({ kind: "refused", message });
      expect(repo.tags()).toEqual({});
      expect(ctx.published).toEqual([]);
    },
  );

  it("finishes a publish that crashed after the merge: tags it, once", async () => {
    const { repo, pr, ctx } = await proposal();
    await repo.mergePull(pr.number, { sha: pr.headSha, method: "merge" });
    const outcome = await publishProposal(ctx, {
      pull: pr.number,
      request: { kind: "command", user: "bob" },
    });
    expect(outcome).toMatchObject({ kind: "published", tag: "apps/web/v1" });
    const again = await publishProposal(ctx, { pull: pr.number, request: { kind: "command", user: "bob" } });
    expect(again).toMatchObject({ kind: "published", tag: "apps/web/v1" });
    expect(ctx.published).toHaveLength(1);
  });
});

describe("publish when someone else merged first", () => {
  it("a merge refused because the pull request was merged meanwhile finishes that publish: tagged once, reported", async () => {
    const { repo, pr, ctx } = await proposal();
    const merge = repo.mergePull.bind(repo);
    let theirs = "";
    repo.mergePull = async (n, input) => {
      repo.mergePull = merge;
      theirs = await merge(n, input);
      return merge(n, input);
    };
    const outcome = await publishProposal(ctx, {
      pull: pr.number,
      request: { kind: "command", user: "bob" },
    });
    expect(outcome).toMatchObject({ kind: "published", tag: "apps/web/v1", mergeSha: theirs });
    expect(repo.tags()).toEqual({ "apps/web/v1": theirs });
    expect(ctx.published).toHaveLength(1);
  });

  it("a merge refused while another merge of it lands waits for that merge: tagged once, reported", async () => {
    const { repo, pr, ctx } = await proposal();
    const merge = repo.mergePull.bind(repo);
    const read = repo.getPull.bind(repo);
    let theirs = "";
    repo.mergePull = async (n, input) => {
      repo.mergePull = merge;
      // the other approval's merge is under way: GitHub refuses this one, and the pull request reads open
      // and unmerged once more before that merge lands
      let reads = 0;
      repo.getPull = async (m) => {
        if (++reads === 2) theirs = await merge(n, input);
        return read(m);
      };
      throw new MergeRefused(`merging pull request #${n}: Pull Request is not mergeable (HTTP 405)`, {
        kind: "not-mergeable",
        github: "Pull Request is not mergeable",
      });
    };
    const outcome = await publishProposal(ctx, {
      pull: pr.number,
      request: { kind: "command", user: "bob" },
    });
    expect(outcome).toMatchObject({ kind: "published", tag: "apps/web/v1", alreadyMerged: true });
    expect(repo.tags()).toEqual({ "apps/web/v1": theirs });
    expect(ctx.published).toHaveLength(1);
  });
});

describe("revision tags", () => {
  it("a clash with the same commit's tag, created meanwhile by another publisher, is that revision", async () => {
    const repo = fakeRepoWith({ "apps/web/Kptfile": KPTFILE });
    const commit = repo.commit("main", { "x.txt": "x" });
    const refs = await repo.listRefs();
    repo.refs.set("refs/tags/apps/web/v1", commit);
    expect(await ensureRevisionTag(repo, "apps/web", commit, refs)).toEqual({
      tag: "apps/web/v1",
      revision: 1,
      created: false,
    });
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
  });

  it("takes the next number after a clash", async () => {
    const repo = fakeRepoWith({ "apps/web/Kptfile": KPTFILE });
    const sha = repo.resolve("main");
    repo.refs.set("refs/tags/apps/web/v1", sha);
    const refs = await repo.listRefs();
    repo.refs.set("refs/tags/apps/web/v2", sha);
    const other = repo.commit("main", { "x.txt": "x" });
    expect(await ensureRevisionTag(repo, "apps/web", other, refs)).toEqual({
      tag: "apps/web/v3",
      revision: 3,
      created: true,
    });
  });
});
