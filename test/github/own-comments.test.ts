import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { world } from "../../packages/forge/test/helpers.js";
import { installationPort, repositoryOf } from "../../src/github/installation.js";
import { tokenOctokit } from "../../src/github/octokit.js";
import { OwnComments } from "../../src/github/own-comments.js";
import { ownWrites } from "../../src/github/own-writes.js";

const repo = { owner: "acme", repo: "blueprints" };
const SUMMARY = "<!-- porchlight:summary -->";
const REVIEW = "<!-- porchlight:publish review=7 -->";

describe("the app's own comments, as this process listed and wrote them", () => {
  it("a pull request never listed here is not answered, whatever was written to it", () => {
    const own = new OwnComments();
    own.wrote(repo, 3, { id: 1, body: `${SUMMARY}\nsummary` });
    expect(own.find(repo, 3, SUMMARY)).toBe("unknown");
  });

  it("a listed pull request answers by marker, with the comments written since", () => {
    const own = new OwnComments();
    own.listed(repo, 3, [
      { id: 1, body: "looks good" },
      { id: 2, body: `${SUMMARY}\nold` },
    ]);
    expect(own.find(repo, 3, REVIEW)).toBeUndefined();
    own.wrote(repo, 3, { id: 5, body: `${REVIEW}\nPublished` });
    own.wrote(repo, 3, { id: 2, body: `${SUMMARY}\nnew` });
    expect(own.find(repo, 3, REVIEW)).toEqual({ id: 5, body: `${REVIEW}\nPublished` });
    expect(own.find(repo, 3, SUMMARY)).toEqual({ id: 2, body: `${SUMMARY}\nnew` });
  });

  it("finds the oldest comment holding the marker, whoever wrote it, as GitHub's listing does", () => {
    const own = new OwnComments();
    own.listed(repo, 3, [
      { id: 1, body: `quoted: ${SUMMARY}` },
      { id: 2, body: `${SUMMARY}\nthe app's` },
    ]);
    expect(own.find(repo, 3, SUMMARY)).toEqual({ id: 1, body: `quoted: ${SUMMARY}` });
  });

  it("a marker none of the app's is always asked of GitHub", () => {
    const own = new OwnComments();
    own.listed(repo, 3, [{ id: 1, body: "<!-- other-bot -->" }]);
    expect(own.find(repo, 3, "<!-- other-bot -->")).toBe("unknown");
  });

  it("a write that failed lets the pull request go: the next question asks GitHub", () => {
    const own = new OwnComments();
    own.listed(repo, 3, []);
    own.forget(repo, 3);
    expect(own.find(repo, 3, SUMMARY)).toBe("unknown");
  });

  it("pull requests and repositories are told apart, their names' case not", () => {
    const own = new OwnComments();
    own.listed({ owner: "Acme", repo: "Blueprints" }, 3, [{ id: 1, body: SUMMARY }]);
    expect(own.find(repo, 3, SUMMARY)).toEqual({ id: 1, body: SUMMARY });
    expect(own.find(repo, 4, SUMMARY)).toBe("unknown");
    expect(own.find({ owner: "acme", repo: "other" }, 3, SUMMARY)).toBe("unknown");
  });
});

describe("the app's comments through its door, its own writes kept (the embedded forge)", () => {
  it("finds its answer again without asking, and writes a comment a person deleted anew", async () => {
    const w = await world();
    try {
      const client = tokenOctokit(w.token, {
        apiUrl: w.forge.apiUrl,
        writeIntervalMs: 0,
        rateLimitRetries: 0,
      });
      const { data } = await w.octokit.rest.repos.get({ owner: "acme", repo: "blueprints" });
      const port = installationPort(
        client,
        mkdtempSync(join(w.tmp, "cache-")),
        undefined,
        false,
        undefined,
        undefined,
        ownWrites(),
      ).repo(repositoryOf(data));
      const issue = (await w.octokit.rest.issues.create({ owner: "acme", repo: "blueprints", title: "t" }))
        .data.number;
      const listings = () =>
        w.forge.requestLog.entries.filter(
          (e) => e.method === "GET" && e.path.endsWith(`/issues/${issue}/comments`),
        ).length;
      const first = await port.ensureComment(issue, REVIEW, `${REVIEW}\nPublished`);
      expect(listings()).toBe(1);
      // the same review again (a redelivery): answered from what this process listed and wrote
      expect(await port.findComment(issue, REVIEW)).toEqual({ id: first.id, body: `${REVIEW}\nPublished` });
      expect(await port.ensureComment(issue, REVIEW, `${REVIEW}\nPublished`)).toEqual({
        id: first.id,
        action: "unchanged",
      });
      expect(listings()).toBe(1);
      // a person deletes the answer: the next write finds that out and writes it anew, once
      await w.octokit.rest.issues.deleteComment({ owner: "acme", repo: "blueprints", comment_id: first.id });
      const again = await port.ensureComment(issue, REVIEW, `${REVIEW}\nPublished again`);
      expect(again.action).toBe("created");
      const bodies = (await port.listComments(issue)).map((c) => c.body);
      expect(bodies).toEqual([`${REVIEW}\nPublished again`]);
    } finally {
      await w.cleanup();
    }
  });
});
