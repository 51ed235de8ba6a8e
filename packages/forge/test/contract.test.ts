import type { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Router } from "../src/router.js";
import { registerRoutes } from "../src/routes/index.js";
import { Contract, type Observed, observe } from "./contract.js";
import { client, Workdir, type World, world } from "./helpers.js";

const repo = { owner: "acme", repo: "blueprints" };

/** Calls every REST route the forge serves, as a client would, recording each response. */
async function scenario(w: World, seen: Observed[]): Promise<void> {
  const bot = w.octokit;
  const app = w.appOctokit;
  const { pat } = w.forge.createUser("alice", { pat: true });
  const { pat: adminPat } = w.forge.createUser("root", { pat: true });
  w.forge.setPermission("acme/blueprints", "root", "admin");
  w.forge.setPermission("acme/blueprints", "alice", "write");
  const alice = client(w.forge, pat!);
  const root = client(w.forge, adminPat!);
  for (const o of [alice, root] as Octokit[]) observe(o, seen);
  const wd = await Workdir.clone(w, "acme/blueprints");

  // App and installations.
  await app.rest.apps.getAuthenticated();
  await app.rest.apps.listInstallations();
  await app.rest.apps.getInstallation({ installation_id: w.installationId });
  await app.rest.apps.getRepoInstallation(repo);
  await app.rest.apps.getOrgInstallation({ org: "acme" });
  const userInst = w.forge.createInstallation(w.appId, "alice", []);
  await app.rest.apps.getUserInstallation({ username: "alice" });
  await app.rest.apps.createInstallationAccessToken({ installation_id: userInst.id, repositories: [] });
  await bot.rest.apps.listReposAccessibleToInstallation();
  await bot.rest.rateLimit.get();
  await alice.rest.users.getAuthenticated();
  await bot.rest.users.getByUsername({ username: "alice" });
  // GitHub Enterprise's site administrator creates an organization; nobody else may
  const { pat: sitePat } = w.forge.createUser("site", { pat: true, siteAdmin: true });
  const site = client(w.forge, sitePat!);
  observe(site, seen);
  await site.request("POST /admin/organizations", { login: "platform", admin: "site" });
  await alice.request("POST /admin/organizations", { login: "mine", admin: "alice" }).catch(() => undefined);

  // Repositories.
  await bot.rest.repos.get(repo);
  await root.rest.repos.createInOrg({ org: "acme", name: "deploy-dev", auto_init: true });
  await bot.rest.repos.createInOrg({ org: "acme", name: "refused" }).catch(() => undefined);
  await alice.rest.repos.createForAuthenticatedUser({ name: "scratch" });
  await bot.rest.repos.listForOrg({ org: "acme" });
  await alice.rest.repos.listForUser({ username: "alice" });
  await alice.rest.repos.listForAuthenticatedUser();
  await root.rest.repos.update({ ...repo, description: "kpt packages" });
  await bot.rest.repos.replaceAllTopics({ ...repo, names: ["kpt", "blueprints"] });
  await bot.rest.repos.getAllTopics(repo);
  await root.rest.repos.addCollaborator({ ...repo, username: "carol", permission: "pull" });
  await bot.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: "alice" });
  await alice.rest.repos.listCollaborators({ ...repo, affiliation: "all", per_page: 100 });
  await bot.rest.repos.listBranches(repo);
  await bot.rest.repos.getBranch({ ...repo, branch: "main" });
  await bot.rest.repos.getBranch({ ...repo, branch: "nope" }).catch(() => undefined);
  await bot.rest.repos.get({ owner: "acme", repo: "missing" }).catch(() => undefined);

  // Git data.
  const head = await wd.commit("drafts/app/v1", {
    "app/Kptfile": "kind: Kptfile\n",
    "app/cm.yaml": "kind: ConfigMap\n",
  });
  const main = (await bot.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
  await bot.rest.git.listMatchingRefs({ ...repo, ref: "heads/" });
  // GitHub's older single-ref form, the `url` of every ref: one ref, the refs under a prefix, or 404
  await bot.request("GET /repos/{owner}/{repo}/git/refs/{ref}", { ...repo, ref: "heads/main" });
  await bot.request("GET /repos/{owner}/{repo}/git/refs/{ref}", { ...repo, ref: "heads" });
  await bot
    .request("GET /repos/{owner}/{repo}/git/refs/{ref}", { ...repo, ref: "heads/nope" })
    .catch(() => undefined);
  const commit = (await bot.rest.git.getCommit({ ...repo, commit_sha: main })).data;
  const side = (
    await bot.rest.git.createCommit({ ...repo, message: "side", tree: commit.tree.sha, parents: [main] })
  ).data;
  await bot.rest.git.createRef({ ...repo, ref: "refs/heads/side", sha: side.sha });
  await bot.rest.git.createRef({ ...repo, ref: "refs/heads/side", sha: side.sha }).catch(() => undefined);
  await bot.rest.git.updateRef({ ...repo, ref: "heads/side", sha: main, force: true });
  await bot.rest.git.updateRef({ ...repo, ref: "heads/side", sha: head }).catch(() => undefined);
  await bot.rest.git.deleteRef({ ...repo, ref: "heads/side" });
  const tag = (
    await bot.rest.git.createTag({ ...repo, tag: "app/v1", message: "v1", object: main, type: "commit" })
  ).data;
  await bot.rest.git.getTag({ ...repo, tag_sha: tag.sha });
  await bot.rest.git.createRef({ ...repo, ref: "refs/tags/app/v1", sha: tag.sha });
  await bot.rest.repos.getContent({ ...repo, path: "" });
  await bot.rest.repos.getContent({ ...repo, path: "app", ref: "drafts/app/v1" });
  await bot.rest.repos.getContent({ ...repo, path: "app/Kptfile", ref: "drafts/app/v1" });
  await bot.rest.repos.getContent({
    ...repo,
    path: "app/Kptfile",
    ref: "drafts/app/v1",
    mediaType: { format: "raw" },
  });
  await bot.rest.repos.getContent({ ...repo, path: "nope" }).catch(() => undefined);
  await bot.rest.repos.getCommit({ ...repo, ref: head });
  const blob = (await bot.rest.git.createBlob({ ...repo, content: "a: 1\n" })).data;
  await bot.rest.git.getBlob({ ...repo, file_sha: blob.sha });
  const tree = (
    await bot.rest.git.createTree({
      ...repo,
      base_tree: commit.tree.sha,
      tree: [{ path: "x/a.yaml", mode: "100644", type: "blob", sha: blob.sha }],
    })
  ).data;
  await bot.rest.git.getTree({ ...repo, tree_sha: tree.sha, recursive: "1" });
  const put = { ...repo, path: "notes/a.md", message: "note", branch: "notes" };
  await bot.rest.git.createRef({ ...repo, ref: "refs/heads/notes", sha: main });
  const file = (
    await bot.rest.repos.createOrUpdateFileContents({ ...put, content: Buffer.from("1").toString("base64") })
  ).data;
  await bot.rest.repos.createOrUpdateFileContents({
    ...put,
    content: Buffer.from("2").toString("base64"),
    sha: file.content!.sha!,
  });
  await bot.rest.repos.createOrUpdateFileContents({ ...put, content: "Mw==" }).catch(() => undefined);
  await bot.rest.repos.listTags(repo);
  await bot.rest.repos.listCommits({ ...repo, sha: "drafts/app/v1" });
  await bot.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `main...drafts/app/v1` });

  // Pulls, reviews.
  const pr = (await bot.rest.pulls.create({ ...repo, title: "app v1", head: "drafts/app/v1", base: "main" }))
    .data;
  await bot.rest.pulls
    .create({ ...repo, title: "dup", head: "drafts/app/v1", base: "main" })
    .catch(() => undefined);
  await bot.rest.pulls.list({ ...repo, state: "all" });
  await bot.rest.pulls.get({ ...repo, pull_number: pr.number });
  await bot.rest.pulls.update({ ...repo, pull_number: pr.number, title: "app v1 (proposed)" });
  await bot.rest.pulls.listFiles({ ...repo, pull_number: pr.number });
  await bot.rest.pulls.listCommits({ ...repo, pull_number: pr.number });
  await bot.rest.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha: head });
  const pending = (await alice.rest.pulls.createReview({ ...repo, pull_number: pr.number })).data;
  await alice.rest.pulls.submitReview({
    ...repo,
    pull_number: pr.number,
    review_id: pending.id,
    event: "APPROVE",
  });
  await root.rest.pulls.createReview({
    ...repo,
    pull_number: pr.number,
    event: "COMMENT",
    body: "looks fine",
  });
  await bot.rest.pulls.listReviews({ ...repo, pull_number: pr.number });

  // Forks, and a pull request from one.
  const fork = (await alice.rest.repos.createFork(repo)).data;
  await bot.rest.repos.listForks(repo);
  await alice.rest.repos.get({ owner: "alice", repo: fork.name });
  await bot.rest.pulls.create({ ...repo, title: "from a fork", head: "alice:drafts/app/v1", base: "main" });
  await bot.rest.pulls.getReview({ ...repo, pull_number: pr.number, review_id: pending.id });

  // Issues, comments, reactions, labels.
  const issue = (await bot.rest.issues.create({ ...repo, title: "dashboard", body: "downstreams" })).data;
  await bot.rest.issues.update({ ...repo, issue_number: issue.number, body: "downstreams: 2" });
  await bot.rest.issues.get({ ...repo, issue_number: issue.number });
  await bot.rest.issues.listForRepo(repo);
  const comment = (
    await alice.rest.issues.createComment({ ...repo, issue_number: pr.number, body: "/approve" })
  ).data;
  await alice.rest.issues.updateComment({ ...repo, comment_id: comment.id, body: "/approve please" });
  await bot.rest.issues.getComment({ ...repo, comment_id: comment.id });
  await bot.rest.issues.listComments({ ...repo, issue_number: pr.number });
  await bot.rest.issues.listCommentsForRepo(repo);
  const reaction = (
    await bot.rest.reactions.createForIssueComment({ ...repo, comment_id: comment.id, content: "eyes" })
  ).data;
  await bot.rest.reactions.listForIssueComment({ ...repo, comment_id: comment.id });
  await bot.rest.reactions.deleteForIssueComment({
    ...repo,
    comment_id: comment.id,
    reaction_id: reaction.id,
  });
  const r2 = (
    await bot.rest.reactions.createForIssue({ ...repo, issue_number: pr.number, content: "rocket" })
  ).data;
  await bot.rest.reactions.listForIssue({ ...repo, issue_number: pr.number });
  await bot.rest.reactions.deleteForIssue({ ...repo, issue_number: pr.number, reaction_id: r2.id });
  const temp = (await bot.rest.issues.createComment({ ...repo, issue_number: issue.number, body: "temp" }))
    .data;
  await bot.rest.issues.deleteComment({ ...repo, comment_id: temp.id });
  await bot.rest.issues.createLabel({ ...repo, name: "porchlight/deletion", color: "b60205" });
  await bot.rest.issues.listLabelsForRepo(repo);
  await bot.rest.issues.getLabel({ ...repo, name: "porchlight/deletion" });
  await bot.rest.issues.updateLabel({
    ...repo,
    name: "porchlight/deletion",
    description: "deletion proposed",
  });
  await bot.rest.issues.addLabels({ ...repo, issue_number: pr.number, labels: ["porchlight/deletion"] });
  await bot.rest.issues.setLabels({
    ...repo,
    issue_number: pr.number,
    labels: ["porchlight/deletion", "bug"],
  });
  await bot.rest.issues.listLabelsOnIssue({ ...repo, issue_number: pr.number });
  await bot.rest.issues.removeLabel({ ...repo, issue_number: pr.number, name: "bug" });
  await bot.rest.issues.removeAllLabels({ ...repo, issue_number: pr.number });
  await bot.rest.issues.deleteLabel({ ...repo, name: "enhancement" });

  // Checks and statuses.
  const run = (
    await bot.rest.checks.create({
      ...repo,
      name: "porchlight/render",
      head_sha: head,
      status: "in_progress",
    })
  ).data;
  await bot.rest.checks.update({
    ...repo,
    check_run_id: run.id,
    conclusion: "success",
    output: {
      title: "rendered",
      summary: "ok",
      annotations: [
        { path: "app/Kptfile", start_line: 1, end_line: 1, annotation_level: "notice", message: "fine" },
      ],
    },
  });
  await bot.rest.checks.get({ ...repo, check_run_id: run.id });
  await bot.rest.checks.listAnnotations({ ...repo, check_run_id: run.id });
  await bot.rest.checks.listForRef({ ...repo, ref: head });
  await bot.rest.checks.rerequestRun({ ...repo, check_run_id: run.id });
  const suites = (await bot.rest.checks.listSuitesForRef({ ...repo, ref: head })).data;
  await bot.rest.checks.rerequestSuite({ ...repo, check_suite_id: suites.check_suites[0]!.id });
  await bot.rest.repos.createCommitStatus({ ...repo, sha: head, state: "success", context: "ci" });
  await bot.rest.repos.listCommitStatusesForRef({ ...repo, ref: head });
  await bot.rest.repos.getCombinedStatusForRef({ ...repo, ref: head });

  // Merge, then the rest of the pull request lifecycle.
  await bot.rest.pulls.merge({ ...repo, pull_number: pr.number, sha: "0".repeat(40) }).catch(() => undefined);
  await bot.rest.pulls.merge({ ...repo, pull_number: pr.number, sha: head });
  await bot.rest.pulls.checkIfMerged({ ...repo, pull_number: pr.number });
  await wd.commit("drafts/two", { "two/Kptfile": "kind: Kptfile\n" });
  const pr2 = (await bot.rest.pulls.create({ ...repo, title: "two", head: "drafts/two", base: "main" })).data;
  await bot.rest.pulls.update({ ...repo, pull_number: pr2.number, state: "closed" });
  await bot.rest.pulls.update({ ...repo, pull_number: pr2.number, state: "open" });
  await wd.commit("drafts/two", { "two/more.yaml": "kind: ConfigMap\n" });
  await bot.rest.pulls.checkIfMerged({ ...repo, pull_number: pr2.number }).catch(() => undefined);

  // Hook deliveries.
  await w.forge.webhooks.idle();
  const deliveries = (await app.rest.apps.listWebhookDeliveries({ per_page: 5 })).data;
  await app.rest.apps.getWebhookDelivery({ delivery_id: deliveries[0]!.id });
  await app.rest.apps.redeliverWebhookDelivery({ delivery_id: deliveries[0]!.id });
  w.forge.addToInstallation(userInst.id, ["alice/scratch"]);
  await w.forge.webhooks.idle();
  await bot.rest.apps.revokeInstallationAccessToken();
}

describe("contract: responses match GitHub's OpenAPI description, payloads its webhook schemas", () => {
  let w: World;
  const seen: Observed[] = [];
  let contract: Contract;
  beforeAll(async () => {
    contract = new Contract();
    w = await world();
    observe(w.octokit, seen);
    observe(w.appOctokit, seen);
    await scenario(w, seen);
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it("had no internal errors", () => {
    expect(w.forge.errors).toEqual([]);
  });

  it("exercises every route the forge serves", () => {
    const router = new Router();
    registerRoutes(router);
    const hit = new Set(seen.map((o) => `${o.method} ${o.template}`));
    const missed = router.routes.map((r) => `${r.method} ${r.template}`).filter((r) => !hit.has(r));
    expect(missed).toEqual([]);
  });

  it("answers every request with a body valid against the operation's documented response", () => {
    const problems = seen.flatMap((o) => contract.checkResponse(o));
    if (problems.length) console.error(problems.join("\n"));
    expect(problems).toEqual([]);
  });

  it("sends webhook payloads valid against @octokit/webhooks-schemas", () => {
    const events = new Set(w.forge.webhooks.deliveries.map((d) => `${d.event}.${d.action ?? ""}`));
    expect([...events].sort()).toEqual(
      expect.arrayContaining([
        "check_run.completed",
        "check_run.created",
        "check_run.rerequested",
        "check_suite.completed",
        "check_suite.requested",
        "check_suite.rerequested",
        "create.",
        "delete.",
        "installation.created",
        "installation_repositories.added",
        "issue_comment.created",
        "issue_comment.edited",
        "pull_request.closed",
        "pull_request.edited",
        "pull_request.labeled",
        "pull_request.opened",
        "pull_request.reopened",
        "pull_request.synchronize",
        "pull_request_review.submitted",
        "push.",
        "status.",
      ]),
    );
    const problems = w.forge.webhooks.deliveries.flatMap((d) =>
      contract.checkWebhook(d.event, d.action, d.payload),
    );
    if (problems.length) console.error([...new Set(problems)].join("\n"));
    expect([...new Set(problems)]).toEqual([]);
  });
});

describe("contract: conditional requests as GitHub answers them", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    await w.cleanup();
  });

  /** A GET as `w.octokit` makes it, with `If-None-Match` when `etag` is given: its status and headers. */
  const get = async (route: string, params: Record<string, unknown>, etag?: string) => {
    try {
      const res = await w.octokit.request(`GET ${route}`, {
        ...params,
        headers: { ...(params.headers as object), ...(etag ? { "if-none-match": etag } : {}) },
      });
      return { status: res.status, headers: res.headers, data: res.data as unknown };
    } catch (e) {
      const err = e as { status: number; response: { headers: Record<string, string>; data: unknown } };
      return { status: err.status, headers: err.response.headers, data: err.response.data };
    }
  };

  it("sends an ETag with a GET and answers 304 without a body, uncounted, while nothing changed", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["/repos/{owner}/{repo}", repo],
      ["/repos/{owner}/{repo}/pulls", { ...repo, state: "open" }],
      ["/repos/{owner}/{repo}/contents/{path}", { ...repo, path: "README.md" }],
      [
        "/repos/{owner}/{repo}/contents/{path}",
        { ...repo, path: "README.md", headers: { accept: "application/vnd.github.raw" } },
      ],
    ];
    for (const [route, params] of cases) {
      const first = await get(route, params);
      expect(first.status, route).toBe(200);
      const etag = String(first.headers.etag);
      expect(etag, route).toMatch(/^(W\/)?"[0-9a-f]{40}"$/);
      const used = Number(first.headers["x-ratelimit-used"]);
      const again = await get(route, params, etag);
      expect(again.status, route).toBe(304);
      expect(again.data === undefined || again.data === "", route).toBe(true);
      expect(again.headers.etag, route).toBe(etag);
      expect(Number(again.headers["x-ratelimit-used"]), route).toBe(used);
      // a tag that is not the current one is answered in full, and counted
      const other = await get(route, params, 'W/"0000000000000000000000000000000000000000"');
      expect(other.status, route).toBe(200);
      expect(Number(other.headers["x-ratelimit-used"]), route).toBe(used + 1);
    }
    // the raw and JSON answers of one path have tags of their own (GitHub varies them by Accept)
    const json = await get("/repos/{owner}/{repo}/contents/{path}", { ...repo, path: "README.md" });
    const raw = await get("/repos/{owner}/{repo}/contents/{path}", {
      ...repo,
      path: "README.md",
      headers: { accept: "application/vnd.github.raw" },
    });
    expect(raw.headers.etag).not.toBe(json.headers.etag);
  });

  it("answers in full once the resource changed", async () => {
    const before = await get("/repos/{owner}/{repo}/pulls", { ...repo, state: "open" });
    const wd = await Workdir.clone(w, "acme/blueprints");
    await wd.commit("drafts/etag", { "etag/Kptfile": "kind: Kptfile\n" });
    await w.octokit.rest.pulls.create({ ...repo, title: "etag", head: "drafts/etag", base: "main" });
    const after = await get(
      "/repos/{owner}/{repo}/pulls",
      { ...repo, state: "open" },
      String(before.headers.etag),
    );
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((after.data as { title: string }[]).map((p) => p.title)).toContain("etag");
  });
});
