import { describe, expect, it } from "vitest";
import { OpenPulls } from "../../src/github/open-pulls.js";
import type { PullRequest } from "../../src/github/port.js";

const REPO = { owner: "acme", repo: "blueprints" };

function pull(number: number, over: Partial<PullRequest> = {}): PullRequest {
  return {
    number,
    title: `#${number}`,
    body: "",
    state: "open",
    merged: false,
    draft: false,
    headRef: `drafts/p${number}/ws`,
    headSha: "a".repeat(40),
    headRepo: "acme/blueprints",
    baseRef: "main",
    baseSha: "b".repeat(40),
    labels: [],
    author: "alice",
    mergeCommitSha: null,
    url: `https://example.test/acme/blueprints/pull/${number}`,
    updatedAt: "2026-11-29T10:00:00Z",
    ...over,
  };
}

/** GitHub's listing as a test holds it: what is open now, and how many times it was asked. */
function github(...open: PullRequest[]) {
  const gh = {
    open,
    asked: 0,
    ask: async () => {
      gh.asked++;
      return gh.open.map((p) => ({ ...p, labels: [...p.labels] }));
    },
  };
  return gh;
}

const numbers = (ps: PullRequest[]) => ps.map((p) => p.number);

describe("the open pull requests a server knows", () => {
  it("lists once, then answers from what it knows until the listing is older than it trusts", async () => {
    let clock = 1_000;
    const known = new OpenPulls(() => 60_000, { now: () => clock });
    const gh = github(pull(1), pull(2));
    expect(numbers(await known.list(REPO, gh.ask))).toEqual([1, 2]);
    expect(numbers(await known.list(REPO, gh.ask))).toEqual([2, 1]);
    expect(gh.asked).toBe(1);
    clock += 60_001;
    await known.list(REPO, gh.ask);
    expect(gh.asked).toBe(2);
  });

  it("asks every time where nothing tells it of changes (trusted 0 ms: `porchlight api`, a fleet not heard)", async () => {
    const known = new OpenPulls(() => 0);
    const gh = github(pull(1));
    await known.list(REPO, gh.ask);
    await known.list(REPO, gh.ask);
    expect(gh.asked).toBe(2);
  });

  it("knows what its own writes did: a pull request opened, labelled, closed, merged", async () => {
    const known = new OpenPulls(() => 60_000);
    const gh = github(pull(1));
    await known.list(REPO, gh.ask);
    known.wrote(REPO, { kind: "answered", pull: pull(2) });
    known.wrote(REPO, { kind: "labels", number: 2, labels: ["porchlight/deletion-proposed"] });
    const now = await known.list(REPO, gh.ask);
    expect(numbers(now)).toEqual([2, 1]);
    expect(now[0]?.labels).toEqual(["porchlight/deletion-proposed"]);
    known.wrote(REPO, { kind: "merged", number: 1 });
    known.wrote(REPO, {
      kind: "answered",
      pull: pull(2, { state: "closed", updatedAt: "2026-11-29T10:00:05Z" }),
    });
    expect(await known.list(REPO, gh.ask)).toEqual([]);
    expect(gh.asked).toBe(1);
    // what it answers is a copy: a caller changing it changes nothing kept
    known.wrote(REPO, { kind: "answered", pull: pull(3) });
    (await known.list(REPO, gh.ask))[0]?.labels.push("mine");
    expect((await known.list(REPO, gh.ask))[0]?.labels).toEqual([]);
  });

  it("applies a webhook's pull request that is newer, and lets go one that is older than what it knows", async () => {
    const known = new OpenPulls(() => 60_000);
    const gh = github(pull(1));
    await known.list(REPO, gh.ask);
    // opened elsewhere, then labelled: each event newer
    known.heard(REPO, "opened", pull(2, { updatedAt: "2026-11-29T10:00:01Z" }));
    known.heard(REPO, "labeled", pull(2, { labels: ["x"], updatedAt: "2026-11-29T10:00:02Z" }));
    // a late event of the state before
    known.heard(REPO, "opened", pull(2, { updatedAt: "2026-11-29T10:00:01Z" }));
    let now = await known.list(REPO, gh.ask);
    expect(numbers(now)).toEqual([2, 1]);
    expect(now[0]?.labels).toEqual(["x"]);
    // merged by this process, then the `opened` event of it told late: it stays merged
    known.wrote(REPO, { kind: "merged", number: 2 });
    known.heard(REPO, "synchronize", pull(2, { updatedAt: "2026-11-29T10:09:00Z" }));
    // closed elsewhere; its late events before the close are let go, a reopening after it applied
    known.heard(REPO, "closed", pull(1, { state: "closed", updatedAt: "2026-11-29T10:00:03Z" }));
    known.heard(REPO, "labeled", pull(1, { updatedAt: "2026-11-29T10:00:02Z" }));
    now = await known.list(REPO, gh.ask);
    expect(numbers(now)).toEqual([]);
    known.heard(REPO, "reopened", pull(1, { updatedAt: "2026-11-29T10:00:09Z" }));
    expect(numbers(await known.list(REPO, gh.ask))).toEqual([1]);
    // opened and closed in one second: the close is the later
    known.heard(REPO, "opened", pull(3, { updatedAt: "2026-11-29T10:00:10Z" }));
    known.heard(REPO, "closed", pull(3, { state: "closed", updatedAt: "2026-11-29T10:00:10Z" }));
    expect(numbers(await known.list(REPO, gh.ask))).toEqual([1]);
    expect(gh.asked).toBe(1);
  });

  it("its own change, then the event of the state before it in the same second: its own stands", async () => {
    const known = new OpenPulls(() => 60_000);
    const gh = github();
    await known.list(REPO, gh.ask);
    known.wrote(REPO, { kind: "answered", pull: pull(5) });
    known.wrote(REPO, { kind: "labels", number: 5, labels: ["porchlight/deletion-proposed"] });
    // GitHub's `opened`, sent before the label landed, the same second as the pull request it answered
    known.heard(REPO, "opened", pull(5));
    expect((await known.list(REPO, gh.ask))[0]?.labels).toEqual(["porchlight/deletion-proposed"]);
    // its `labeled`, later: the same state, now dated
    known.heard(
      REPO,
      "labeled",
      pull(5, { labels: ["porchlight/deletion-proposed"], updatedAt: "2026-11-29T10:00:01Z" }),
    );
    expect(gh.asked).toBe(1);
    // and a later event that does not hold it: whether it came before or after is not known
    known.wrote(REPO, { kind: "labels", number: 5, labels: [] });
    known.heard(REPO, "edited", pull(5, { labels: ["other"], updatedAt: "2026-11-29T10:00:02Z" }));
    gh.open = [pull(5, { labels: ["other"] })];
    expect((await known.list(REPO, gh.ask))[0]?.labels).toEqual(["other"]);
    expect(gh.asked).toBe(2);
  });

  it("asks again for what it cannot place", async () => {
    const known = new OpenPulls(() => 60_000);
    const gh = github(pull(1));
    const again = async (what: string, change: () => void) => {
      await known.list(REPO, gh.ask);
      const before = gh.asked;
      change();
      await known.list(REPO, gh.ask);
      expect(gh.asked, what).toBe(before + 1);
    };
    await again("two states of one pull request in the same second", () =>
      known.heard(REPO, "labeled", pull(1, { labels: ["y"] })),
    );
    await again("an open pull request the listing did not hold, not just opened", () =>
      known.heard(REPO, "labeled", pull(7)),
    );
    await again("reopened the second it was closed, or its state before the close", () => {
      known.heard(REPO, "closed", pull(1, { state: "closed", updatedAt: "2026-11-29T10:00:30Z" }));
      known.heard(REPO, "reopened", pull(1, { updatedAt: "2026-11-29T10:00:30Z" }));
    });
    await again("an event without its time", () =>
      known.heard(REPO, "edited", pull(1, { updatedAt: undefined })),
    );
    await again("a push to a branch a pull request goes into: GitHub may merge it", () =>
      known.wrote(REPO, { kind: "pushed", branch: "main", sha: "c".repeat(40) }),
    );
    await again("a pull request's head branch deleted: GitHub closes it", () =>
      known.wrote(REPO, { kind: "deleted", branch: "drafts/p1/ws" }),
    );
    await again("another replica wrote", () => known.unsure("ACME/Blueprints"));
    // a push to a pull request's head is known: its head moves
    known.wrote(REPO, { kind: "pushed", branch: "drafts/p1/ws", sha: "d".repeat(40) });
    const before = gh.asked;
    expect((await known.list(REPO, gh.ask))[0]?.headSha).toBe("d".repeat(40));
    // and a branch no pull request comes from or goes into changes nothing
    known.wrote(REPO, { kind: "pushed", branch: "drafts/other/ws", sha: "e".repeat(40) });
    known.wrote(REPO, { kind: "deleted", branch: "drafts/other/ws" });
    await known.list(REPO, gh.ask);
    expect(gh.asked).toBe(before);
  });

  it("tells its own writes' changes on (to a fleet's other replicas), and applies theirs without telling them again", async () => {
    const said: string[] = [];
    const here = new OpenPulls(() => 60_000, { tell: (full, change) => said.push(`${full} ${change.kind}`) });
    const there = new OpenPulls(() => 60_000, { tell: () => said.push("told again") });
    const gh = github();
    await here.list(REPO, gh.ask);
    await there.list(REPO, gh.ask);
    here.wrote(REPO, { kind: "answered", pull: pull(4) });
    there.told("acme/blueprints", { kind: "answered", pull: pull(4) });
    expect(said).toEqual(["acme/blueprints answered"]);
    expect(numbers(await there.list(REPO, gh.ask))).toEqual([4]);
    expect(gh.asked).toBe(2);
  });

  it("does not keep a listing asked before a change it heard while asking", async () => {
    const known = new OpenPulls(() => 60_000);
    let answer: (ps: PullRequest[]) => void = () => {};
    const slow = () => new Promise<PullRequest[]>((resolve) => (answer = resolve));
    const listing = known.list(REPO, slow);
    known.wrote(REPO, { kind: "answered", pull: pull(2) });
    answer([pull(1)]);
    expect(numbers(await listing)).toEqual([1]);
    const gh = github(pull(2), pull(1));
    expect(numbers(await known.list(REPO, gh.ask))).toEqual([2, 1]);
    expect(gh.asked).toBe(1);
  });
});
