import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/errors.js";
import { installationPort } from "../../src/github/installation.js";
import { tokenOctokit } from "../../src/github/octokit.js";
import type { InstallationPort, RepoPort } from "../../src/github/port.js";

/**
 * The Octokit adapter against GitHub's own documentation: each request is answered with the example
 * response `@octokit/openapi` publishes for that operation (api.github.com's OpenAPI description),
 * a second oracle beside the forge, which was written here. Nothing else is answered: an unexpected
 * request fails the test, and so does an expected one the adapter never made.
 */
interface Spec {
  paths: Record<string, Record<string, { responses: Record<string, Ref & Response> }>>;
  components: { responses: Record<string, Response>; examples: Record<string, { value: unknown }> };
}
interface Ref {
  $ref?: string;
}
interface Response {
  content?: Record<string, { examples?: Record<string, Ref & { value?: unknown }> }>;
}
const spec = createRequire(import.meta.url)("@octokit/openapi/generated/api.github.com.json") as Spec;
const last = (ref: string) => ref.split("/").pop() as string;

/** The documented example of `method path`'s `status` response. */
function example(method: string, path: string, status = "200"): unknown {
  const operation = spec.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`no operation ${method} ${path} in GitHub's OpenAPI description`);
  let response: Ref & Response = operation.responses[status] ?? {};
  if (response.$ref) response = spec.components.responses[last(response.$ref)] ?? {};
  const examples = response.content?.["application/json"]?.examples ?? {};
  const first = Object.values(examples)[0];
  if (!first) throw new Error(`no example for ${method} ${path} ${status}`);
  return first.$ref ? spec.components.examples[last(first.$ref)]?.value : first.value;
}

const API = "https://api.github.com";
const REPO = { owner: "octocat", repo: "Hello-World" };
const unmatched: string[] = [];

/** Answers `method url` once with GitHub's example for the operation `path` documents. */
function documented(method: "GET" | "POST" | "PATCH", url: string, path: string, status = "200") {
  return nock(API)
    .intercept(url, method)
    .query(true)
    .reply(Number(status), example(method, path, status) as nock.Body, {
      "content-type": "application/json; charset=utf-8",
    });
}

describe("the Octokit adapter, answered by GitHub's documented examples", () => {
  let cache: string;
  let installation: InstallationPort;
  let port: RepoPort;

  beforeAll(() => {
    nock.disableNetConnect();
    nock.emitter.on("no match", (req: { method?: string; path?: string; options?: { path?: string } }) => {
      unmatched.push(`${req.method ?? ""} ${req.path ?? req.options?.path ?? String(req)}`);
    });
    cache = mkdtempSync(join(tmpdir(), "openapi-examples-"));
    installation = installationPort(
      tokenOctokit("ghs_example", { writeIntervalMs: 0, rateLimitRetries: 0, retryAfterUnitMs: 0 }),
      cache,
    );
    port = installation.repo({
      id: REPO,
      fullName: "octocat/Hello-World",
      topics: [],
      defaultBranch: "master",
      cloneUrl: "https://github.com/octocat/Hello-World.git",
      archived: false,
    });
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect({ unmatched: unmatched.splice(0), pending }).toEqual({ unmatched: [], pending: [] });
  });
  afterAll(() => {
    nock.enableNetConnect();
    nock.emitter.removeAllListeners("no match");
    rmSync(cache, { recursive: true, force: true });
  });

  it("reads a pull request as the port names it", async () => {
    documented("GET", "/repos/octocat/Hello-World/pulls/1347", "/repos/{owner}/{repo}/pulls/{pull_number}");
    expect(await port.getPull(1347)).toEqual({
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
    });
  });

  it("lists open pull requests and a pull request's reviews", async () => {
    documented("GET", "/repos/octocat/Hello-World/pulls", "/repos/{owner}/{repo}/pulls");
    documented(
      "GET",
      "/repos/octocat/Hello-World/pulls/1347/reviews",
      "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    );
    expect((await port.listOpenPulls()).map((p) => [p.number, p.headRef, p.state])).toEqual([
      [1347, "new-topic", "open"],
    ]);
    expect(await port.listReviews(1347)).toEqual([
      { id: 80, user: "octocat", state: "APPROVED", commitId: "ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091" },
    ]);
  });

  it("reads a collaborator's role, and none for someone GitHub does not know there", async () => {
    documented(
      "GET",
      "/repos/octocat/Hello-World/collaborators/octocat/permission",
      "/repos/{owner}/{repo}/collaborators/{username}/permission",
    );
    expect(await port.permissionOf("octocat")).toBe("admin");
    nock(API)
      .get("/repos/octocat/Hello-World/collaborators/stranger/permission")
      .reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    expect(await port.permissionOf("stranger")).toBe("none");
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
    expect(await port.listCheckRuns(sha)).toEqual([
      {
        id: 4,
        name: "mighty_readme",
        headSha: sha,
        status: "completed",
        conclusion: "neutral",
        externalId: "",
      },
    ]);
    expect(await port.listComments(1347)).toEqual([{ id: 1, author: "octocat", bot: false, body: "Me too" }]);
  });

  it("lists the installation's repositories with their topics", async () => {
    documented("GET", "/installation/repositories", "/installation/repositories");
    expect(await installation.listRepositories()).toEqual([
      {
        id: { owner: "octocat", repo: "Hello-World" },
        fullName: "octocat/Hello-World",
        topics: ["octocat", "atom", "electron", "api"],
        defaultBranch: "master",
        cloneUrl: "https://github.com/octocat/Hello-World.git",
        archived: false,
      },
    ]);
  });

  it("turns GitHub's refusal into a typed GitHubError naming what was asked", async () => {
    nock(API)
      .get("/repos/octocat/Hello-World/pulls/9")
      .reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    const err = await port.getPull(9).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({
      kind: "not-found",
      status: 404,
      message: "reading pull request #9 in octocat/Hello-World: Not Found (HTTP 404)",
    });
  });
});
