import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { connectRepo } from "../../src/github/connect.js";
import { GitHubError } from "../../src/github/errors.js";
import { API, documented, documentedGitHub } from "./openapi-oracle.js";

/**
 * The Octokit adapter against GitHub's own documentation: each request is answered with the example
 * response `@octokit/openapi` publishes for that operation (api.github.com's OpenAPI description),
 * a second oracle beside the forge, which was written here. Nothing else is answered: an unexpected
 * request fails the test, and so does an expected one the adapter never made.
 */
describe("the Octokit adapter, answered by GitHub's documented examples", () => {
  const github = documentedGitHub();

  it("reads a pull request as the port names it", async () => {
    documented("GET", "/repos/octocat/Hello-World/pulls/1347", "/repos/{owner}/{repo}/pulls/{pull_number}");
    expect(await github.port().getPull(1347)).toEqual({
      number: 1347,
      title: "Amazing new feature",
      body: "Please pull these awesome changes in!",
      state: "open",
      merged: false,
      draft: false,
      headRef: "new-topic",
      headSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
      headRepo: "octocat/Hello-World",
      baseRef: "master",
      baseSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
      labels: ["bug"],
      author: "octocat",
      mergeCommitSha: "e5bd3914e2e596debea16f433f57875b5b90bcd6",
      url: "https://github.com/octocat/Hello-World/pull/1347",
      createdAt: "2011-01-26T19:01:12Z",
      // when GitHub last changed it: what orders a webhook's pull request against a listing's
      updatedAt: "2011-01-26T19:01:12Z",
      // Only a single pull request's read says whether it merges cleanly (the rebase policy reads it).
      mergeable: true,
      // who merged it, as the single read gives it (the example names one though it is not merged)
      mergedBy: "octocat",
    });
  });

  it("lists open pull requests and a pull request's reviews", async () => {
    documented("GET", "/repos/octocat/Hello-World/pulls", "/repos/{owner}/{repo}/pulls");
    documented(
      "GET",
      "/repos/octocat/Hello-World/pulls/1347/reviews",
      "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    );
    expect((await github.port().listOpenPulls()).map((p) => [p.number, p.headRef, p.state])).toEqual([
      [1347, "new-topic", "open"],
    ]);
    expect(await github.port().listReviews(1347)).toEqual([
      { id: 80, user: "octocat", state: "APPROVED", commitId: "ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091" },
    ]);
  });

  it("reads a collaborator's role, and none for someone GitHub does not know there", async () => {
    documented(
      "GET",
      "/repos/octocat/Hello-World/collaborators/octocat/permission",
      "/repos/{owner}/{repo}/collaborators/{username}/permission",
    );
    expect(await github.port().permissionOf("octocat")).toBe("admin");
    nock(API)
      .get("/repos/octocat/Hello-World/collaborators/stranger/permission")
      .reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    expect(await github.port().permissionOf("stranger")).toBe("none");
  });

  it("lists a commit's check runs and an issue's comments", async () => {
    const sha = "ce587453ced02b1526dfb4cb910479d431683101";
    documented(
      "GET",
      `/repos/octocat/Hello-World/commits/${sha}/check-runs`,
      "/repos/{owner}/{repo}/commits/{ref}/check-runs",
    );
    documented(
      "GET",
      "/repos/octocat/Hello-World/issues/1347/comments",
      "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    );
    expect(await github.port().listCheckRuns(sha)).toEqual([
      {
        id: 4,
        name: "mighty_readme",
        headSha: sha,
        status: "completed",
        conclusion: "neutral",
        externalId: "",
      },
    ]);
    expect(await github.port().listComments(1347)).toEqual([
      {
        id: 1,
        author: "octocat",
        bot: false,
        body: "Me too",
        createdAt: "2011-04-14T16:00:49Z",
        updatedAt: "2011-04-14T16:00:49Z",
      },
    ]);
  });

  it("lists the installation's repositories with their topics", async () => {
    documented("GET", "/installation/repositories", "/installation/repositories");
    expect(await github.installation().listRepositories()).toEqual([
      {
        id: { owner: "octocat", repo: "Hello-World" },
        fullName: "octocat/Hello-World",
        topics: ["octocat", "atom", "electron", "api"],
        defaultBranch: "master",
        cloneUrl: "https://github.com/octocat/Hello-World.git",
        archived: false,
        private: false,
      },
    ]);
  });

  it("connects a person's token: the repository with the token's permission, and who the token is", async () => {
    documented("GET", "/repos/octocat/Hello-World", "/repos/{owner}/{repo}");
    documented("GET", "/user", "/user");
    const cacheDir = mkdtempSync(join(tmpdir(), "openapi-connect-"));
    try {
      const connection = await connectRepo({
        token: "ghp_example",
        repo: { owner: "octocat", repo: "Hello-World" },
        cacheDir,
        rateLimitRetries: 0,
        retryAfterUnitMs: 0,
      });
      expect(connection.info).toEqual({
        id: { owner: "octocat", repo: "Hello-World" },
        name: "Hello-World",
        defaultBranch: "master",
        cloneUrl: "https://github.com/octocat/Hello-World.git",
        permission: "read",
      });
      expect(await connection.whoami()).toEqual({
        login: "octocat",
        name: "monalisa octocat",
        email: "octocat@github.com",
      });
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it("turns GitHub's refusal into a typed GitHubError naming what was asked", async () => {
    nock(API)
      .get("/repos/octocat/Hello-World/pulls/9")
      .reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    const err = await github
      .port()
      .getPull(9)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({
      kind: "not-found",
      status: 404,
      message: "reading pull request #9 in octocat/Hello-World: Not Found (HTTP 404)",
    });
  });
});
