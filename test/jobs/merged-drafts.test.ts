import { describe, expect, it } from "vitest";
import type { PullRequest, RepoPulls } from "../../src/github/port.js";
import {
  type DraftPullsMemo,
  mergedDraftPulls,
  mergedDrafts,
  mergedInto,
  noteDraftCommit,
} from "../../src/jobs/publish/merged-drafts.js";

const sha = (c: string) => c.repeat(40);

function pull(number: number, headRef: string, headSha: string, baseRef: string, merged = true): PullRequest {
  return {
    number,
    title: `#${number}`,
    body: "",
    state: "closed",
    merged,
    draft: false,
    headRef,
    headSha,
    headRepo: "acme/blueprints",
    baseRef,
    baseSha: sha("0"),
    labels: [],
    author: "alice",
    mergeCommitSha: merged ? sha("f") : null,
    url: "",
  };
}

/** A repository's pull requests by head branch, newest first; counts the listings asked. */
function pulls(byBranch: Record<string, PullRequest[]>) {
  const asked: string[] = [];
  const port = {
    id: { owner: "acme", repo: "blueprints" },
    listPullsFrom: async (head: string) => {
      asked.push(head);
      return byBranch[head] ?? [];
    },
  } as unknown as RepoPulls;
  return { port, asked };
}

describe("merged drafts", () => {
  const refs = [
    { ref: "refs/heads/main", sha: sha("1") },
    { ref: "refs/heads/drafts/app/a", sha: sha("a") },
    { ref: "refs/heads/drafts/app/b", sha: sha("b") },
    { ref: "refs/heads/drafts/app/c", sha: sha("c") },
  ];
  const byBranch = {
    // merged at its head into another branch first (newest), then into main
    "drafts/app/a": [pull(3, "drafts/app/a", sha("a"), "release"), pull(2, "drafts/app/a", sha("a"), "main")],
    // merged, but the branch moved on since
    "drafts/app/b": [pull(4, "drafts/app/b", sha("9"), "main")],
    // closed without a merge
    "drafts/app/c": [pull(5, "drafts/app/c", sha("c"), "main", false)],
  };

  it("are asked before the base branch is known, then the first merged into it kept per branch", async () => {
    const { port, asked } = pulls(byBranch);
    const listed = await mergedDraftPulls(port, { refs, openPulls: [] });
    expect(listed.map((p) => p.number)).toEqual([3, 2]);
    expect(mergedInto(listed, "main").map((p) => p.number)).toEqual([2]);
    expect(mergedInto(listed, "release").map((p) => p.number)).toEqual([3]);
    expect(asked.sort()).toEqual(["drafts/app/a", "drafts/app/b", "drafts/app/c"]);
  });

  it("are what mergedDrafts finds, and a branch with an open pull request is not asked about", async () => {
    const { port, asked } = pulls(byBranch);
    const open = [{ ...pull(6, "drafts/app/b", sha("b"), "main", false), state: "open" as const }];
    const found = await mergedDrafts(port, { refs, openPulls: open, baseBranch: "main" });
    expect(found.map((p) => p.number)).toEqual([2]);
    expect(asked.sort()).toEqual(["drafts/app/a", "drafts/app/c"]);
  });

  it("kept between readings: a draft is asked again only once its head moved or its open proposal closed", async () => {
    const { port, asked } = pulls(byBranch);
    const memo: DraftPullsMemo = new Map();
    const proposal = { ...pull(6, "drafts/app/c", sha("c"), "main", false), state: "open" as const };
    const first = await mergedDraftPulls(port, { refs, openPulls: [proposal] }, memo);
    expect(first.map((p) => p.number)).toEqual([3, 2]);
    expect(asked.splice(0).sort()).toEqual(["drafts/app/a", "drafts/app/b"]);
    // nothing moved: the kept listings answer, GitHub is asked nothing
    expect(
      (await mergedDraftPulls(port, { refs, openPulls: [proposal] }, memo)).map((p) => p.number),
    ).toEqual([3, 2]);
    expect(asked).toEqual([]);
    // c's proposal closed (it may have been merged), b moved: those two asked again, a not
    const moved = refs.map((r) => (r.ref.endsWith("/b") ? { ...r, sha: sha("9") } : r));
    const third = await mergedDraftPulls(port, { refs: moved, openPulls: [] }, memo);
    expect(asked.sort()).toEqual(["drafts/app/b", "drafts/app/c"]);
    expect(third.map((p) => p.number).sort()).toEqual([2, 3, 4]);
  });

  it("a draft this process just committed is not asked about; one with an open proposal still is once it closes", async () => {
    const { port, asked } = pulls(byBranch);
    const memo: DraftPullsMemo = new Map();
    const proposal = { ...pull(6, "drafts/app/c", sha("c"), "main", false), state: "open" as const };
    await mergedDraftPulls(port, { refs, openPulls: [proposal] }, memo);
    asked.splice(0);
    // a new draft made here, and a push to b: their heads are commits made an instant ago
    noteDraftCommit(memo, port, "drafts/app/new", sha("d"));
    noteDraftCommit(memo, port, "drafts/app/b", sha("e"));
    // c has an open proposal: a commit noted on it does not make its listing trusted once the proposal closes
    noteDraftCommit(memo, port, "drafts/app/c", sha("c"));
    const now = [
      ...refs.map((r) => (r.ref.endsWith("/b") ? { ...r, sha: sha("e") } : r)),
      { ref: "refs/heads/drafts/app/new", sha: sha("d") },
    ];
    await mergedDraftPulls(port, { refs: now, openPulls: [] }, memo);
    expect(asked).toEqual(["drafts/app/c"]);
  });
});
