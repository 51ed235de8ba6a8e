import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRepo } from "../../src/github/connect.js";
import { GitHubError, toGitHubError } from "../../src/github/errors.js";
import type { GitRepo } from "../../src/github/git-repo.js";
import { OctokitRepo } from "../../src/github/octokit-repo.js";

/** GitHub's answers are checked where they enter: odd ones fail the call saying which field, or are read as meant. */
describe("GitHub's answers at the door", () => {
  let server: Server;
  let repo: OctokitRepo;
  let baseUrl = "";
  const answers = new Map<string, unknown>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? "").replace(/\?.*$/, "");
      const body = answers.get(path);
      if (body === undefined) return res.writeHead(404, { "content-type": "application/json" }).end("{}");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const octokit = new Octokit({ baseUrl, request: { retries: 0 } });
    repo = new OctokitRepo(octokit, { owner: "acme", repo: "app" }, {} as GitRepo);
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it("a pull request without its head fails the call naming the field, not a job later", async () => {
    answers.set("/repos/acme/app/pulls/7", {
      number: 7,
      title: "t",
      state: "open",
      base: { ref: "main", sha: "b" },
    });
    const err = await repo.getPull(7).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(String((err as Error).message)).toMatch(
      /reading pull request #7: GitHub's answer is not what its API documents \(head: /,
    );
  });

  it("a check run waiting on a deployment is read as queued, not as a state porchlight does not know", async () => {
    answers.set("/repos/acme/app/commits/abc/check-runs", {
      total_count: 2,
      check_runs: [
        { id: 1, name: "deploy", head_sha: "abc", status: "waiting", conclusion: null, external_id: null },
        { id: 2, name: "porchlight/render", head_sha: "abc", status: "completed", conclusion: "success" },
      ],
    });
    expect(await repo.listCheckRuns("abc")).toEqual([
      { id: 1, name: "deploy", headSha: "abc", status: "queued", conclusion: null, externalId: null },
      {
        id: 2,
        name: "porchlight/render",
        headSha: "abc",
        status: "completed",
        conclusion: "success",
        externalId: null,
      },
    ]);
  });

  it("a collaborator's custom role falls back to its base permission; a missing user has none", async () => {
    answers.set("/repos/acme/app/collaborators/ana/permission", {
      permission: "write",
      role_name: "deployer",
    });
    answers.set("/repos/acme/app/collaborators/bo/permission", { permission: "read", role_name: "triage" });
    expect(await repo.permissionOf("ana")).toBe("write");
    expect(await repo.permissionOf("bo")).toBe("triage");
    expect(await repo.permissionOf("nobody")).toBe("none");
  });

  it("a repository read for a person's token without its default branch fails the connection naming it", async () => {
    answers.set("/repos/acme/lost", {
      name: "lost",
      full_name: "acme/lost",
      owner: { login: "acme" },
      clone_url: "https://example.test/acme/lost.git",
    });
    const err = await connectRepo({
      token: "t",
      apiUrl: baseUrl,
      repo: { owner: "acme", repo: "lost" },
      cacheDir: "/nonexistent",
      rateLimitRetries: 0,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(String((err as Error).message)).toMatch(
      /^reading acme\/lost: GitHub's answer is not what its API documents \(default_branch: /,
    );
  });
});

describe("a refusal's body, however GitHub (or a proxy) words it", () => {
  const refusal = (data: unknown) =>
    toGitHubError(
      { status: 422, message: "Octokit's own words", response: { headers: {}, data } },
      "creating x",
    );

  it("says GitHub's message and each of its errors' messages", () => {
    const data = { message: "Validation Failed", errors: [{ message: "name too long" }, { code: "custom" }] };
    expect(refusal(data)).toMatchObject({
      kind: "validation",
      message: "creating x: Validation Failed: name too long (HTTP 422)",
    });
  });

  it("falls back to Octokit's words for a body of another shape, and skips errors that are not objects", () => {
    expect(refusal("<html>bad gateway</html>")).toMatchObject({
      message: "creating x: Octokit's own words (HTTP 422)",
    });
    expect(refusal([{ message: "a list" }])).toMatchObject({
      message: "creating x: Octokit's own words (HTTP 422)",
    });
    expect(
      refusal({ message: "Validation Failed", errors: ["plain text", null, { message: 5 }] }),
    ).toMatchObject({
      message: "creating x: Validation Failed (HTTP 422)",
    });
    expect(refusal({ message: "Validation Failed", errors: { message: "not a list" } })).toMatchObject({
      message: "creating x: Validation Failed (HTTP 422)",
    });
  });
});
