import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, Workdir, type World, world } from "./helpers.js";

const repo = { owner: "acme", repo: "blueprints" };

describe("forge issues, comments, reactions, labels, checks, statuses, permissions, compare", () => {
  let w: World;
  let wd: Workdir;
  let prNumber: number;
  let head: string;
  beforeAll(async () => {
    w = await world();
    wd = await Workdir.clone(w, "acme/blueprints");
    head = await wd.commit("drafts/pkg/ws", { "pkg/Kptfile": "kind: Kptfile\n" });
    prNumber = (
      await w.octokit.rest.pulls.create({ ...repo, title: "pkg", head: "drafts/pkg/ws", base: "main" })
    ).data.number;
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it("creates and edits pull request comments, with issue_comment webhooks", async () => {
    const { pat } = w.forge.createUser("reader", { pat: true });
    w.forge.setPermission("acme/blueprints", "reader", "read");
    const reader = client(w.forge, pat!);
    const { data: c } = await reader.rest.issues.createComment({
      ...repo,
      issue_number: prNumber,
      body: "/approve",
    });
    expect(c).toMatchObject({
      body: "/approve",
      user: { login: "reader" },
      author_association: "COLLABORATOR",
    });
    const { data: bot } = await w.octokit.rest.issues.createComment({
      ...repo,
      issue_number: prNumber,
      body: "summary",
    });
    await w.octokit.rest.issues.updateComment({ ...repo, comment_id: bot.id, body: "summary v2" });
    const { data: list } = await w.octokit.rest.issues.listComments({ ...repo, issue_number: prNumber });
    expect(list.map((x) => x.body)).toEqual(["/approve", "summary v2"]);
    await expect(
      w.octokit.rest.issues.createComment({ ...repo, issue_number: prNumber, body: "x".repeat(65537) }),
    ).rejects.toMatchObject({ status: 422 });
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("issue_comment").map((d) => d.action)).toEqual([
      "created",
      "created",
      "edited",
    ]);
    const created = w.forge.webhooks.find("issue_comment", "created")[0]!;
    expect(created.payload).toMatchObject({
      issue: { number: prNumber, pull_request: {} },
      comment: { body: "/approve" },
    });
  });

  it("adds reactions (201 new, 200 existing) and rejects unknown content", async () => {
    const { data: c } = await w.octokit.rest.issues.createComment({
      ...repo,
      issue_number: prNumber,
      body: "hi",
    });
    const first = await w.octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: c.id,
      content: "eyes",
    });
    const again = await w.octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: c.id,
      content: "eyes",
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    const { data: got } = await w.octokit.rest.issues.getComment({ ...repo, comment_id: c.id });
    expect(got.reactions).toMatchObject({ total_count: 1, eyes: 1 });
    await expect(
      w.octokit.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", {
        ...repo,
        comment_id: c.id,
        content: "nope" as "eyes",
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it("labels a pull request (labeled webhook) and removes the label", async () => {
    const { data: labels } = await w.octokit.rest.issues.addLabels({
      ...repo,
      issue_number: prNumber,
      labels: ["porchlight/deletion"],
    });
    expect(labels.map((l) => l.name)).toEqual(["porchlight/deletion"]);
    await w.octokit.rest.issues.removeLabel({ ...repo, issue_number: prNumber, name: "porchlight/deletion" });
    await expect(
      w.octokit.rest.issues.removeLabel({ ...repo, issue_number: prNumber, name: "porchlight/deletion" }),
    ).rejects.toMatchObject({ status: 404, response: { data: { message: "Label does not exist" } } });
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("pull_request", "labeled")[0]?.payload.label).toMatchObject({
      name: "porchlight/deletion",
    });
  });

  it("creates check runs with up to 50 annotations per call, appends on update, 422 beyond", async () => {
    const ann = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        path: "pkg/Kptfile",
        start_line: i + 1,
        end_line: i + 1,
        annotation_level: "warning" as const,
        message: `m${i}`,
      }));
    const { data: run } = await w.octokit.rest.checks.create({
      ...repo,
      name: "porchlight/render",
      head_sha: head,
      status: "in_progress",
      output: { title: "render", summary: "rendering", annotations: ann(50) },
    });
    await expect(
      w.octokit.rest.checks.update({
        ...repo,
        check_run_id: run.id,
        output: { title: "t", summary: "s", annotations: ann(51) },
      }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: { message: "Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied." },
      },
    });
    const { data: done } = await w.octokit.rest.checks.update({
      ...repo,
      check_run_id: run.id,
      conclusion: "failure",
      output: { title: "render", summary: "failed", annotations: ann(10) },
    });
    expect(done).toMatchObject({
      status: "completed",
      conclusion: "failure",
      output: { annotations_count: 60 },
    });
    expect(done.pull_requests.map((p) => p.number)).toEqual([prNumber]);
    const { data: list } = await w.octokit.rest.checks.listForRef({ ...repo, ref: "drafts/pkg/ws" });
    expect(list.check_runs.map((r) => r.name)).toEqual(["porchlight/render"]);
    const all = await w.octokit.paginate(w.octokit.rest.checks.listAnnotations, {
      ...repo,
      check_run_id: run.id,
      per_page: 25,
    });
    expect(all).toHaveLength(60);
    await w.octokit.rest.checks.rerequestRun({ ...repo, check_run_id: run.id });
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("check_run", "rerequested")).toHaveLength(1);
    expect(w.forge.webhooks.find("check_suite", "requested").length).toBeGreaterThan(0);
  });

  it("records commit statuses and combines them per context", async () => {
    await w.octokit.rest.repos.createCommitStatus({ ...repo, sha: head, state: "pending", context: "ci" });
    await w.octokit.rest.repos.createCommitStatus({ ...repo, sha: head, state: "success", context: "ci" });
    await w.octokit.rest.repos.createCommitStatus({ ...repo, sha: head, state: "success", context: "lint" });
    const { data } = await w.octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: head });
    expect(data).toMatchObject({ state: "success", total_count: 2, sha: head });
    await w.octokit.rest.repos.createCommitStatus({ ...repo, sha: head, state: "failure", context: "lint" });
    expect((await w.octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: head })).data.state).toBe(
      "failure",
    );
  });

  it("sends check_run created/completed and check_suite completed to every installed app, rerequested to the run's own", async () => {
    // A CI app of its own, installed on the same account: its runs reach porchlight's app too (a merge
    // bot acts on CI's checks), as GitHub sends them.
    const ci = w.forge.createApp({ name: "ci", owner: "acme", webhookUrl: null });
    const ciOctokit = client(
      w.forge,
      w.forge.installationToken(w.forge.createInstallation(ci.appId, "acme").id),
    );
    const sha = await wd.commit("drafts/ci/ws", { "ci/Kptfile": "kind: Kptfile\n" });
    await w.forge.webhooks.idle();
    const before = w.forge.webhooks.deliveries.length;
    const { data: run } = await ciOctokit.rest.checks.create({ ...repo, name: "ci/e2e", head_sha: sha });
    await ciOctokit.rest.checks.update({ ...repo, check_run_id: run.id, conclusion: "success" });
    await ciOctokit.rest.checks.rerequestRun({ ...repo, check_run_id: run.id });
    await w.forge.webhooks.idle();
    const sent = w.forge.webhooks.deliveries
      .slice(before)
      .filter((d) => d.event === "check_run" || d.event === "check_suite")
      .map((d) => `${d.event}.${d.action} → ${d.appId === ci.appId ? "ci" : "porchlight"}`)
      .sort();
    expect(sent).toEqual([
      "check_run.completed → ci",
      "check_run.completed → porchlight",
      "check_run.created → ci",
      "check_run.created → porchlight",
      "check_run.rerequested → ci",
      "check_suite.completed → ci",
      "check_suite.completed → porchlight",
    ]);
    const completed = w.forge.webhooks.deliveries
      .slice(before)
      .find((d) => d.event === "check_run" && d.action === "completed" && d.appId === w.appId);
    expect(completed?.payload).toMatchObject({
      check_run: { name: "ci/e2e", head_sha: sha, conclusion: "success", app: { slug: "ci" } },
    });
  });

  it("sends a status event for each commit status, naming the branches that hold the commit", async () => {
    const sha = await wd.commit("drafts/st/ws", { "st/Kptfile": "kind: Kptfile\n" });
    await w.forge.webhooks.idle();
    const before = w.forge.webhooks.deliveries.length;
    await w.octokit.rest.repos.createCommitStatus({
      ...repo,
      sha,
      state: "success",
      context: "ci/jenkins",
      description: "passed",
    });
    await w.forge.webhooks.idle();
    const [status, ...more] = w.forge.webhooks.deliveries
      .slice(before)
      .filter((d) => d.event === "status" && d.appId === w.appId);
    expect(more).toEqual([]);
    expect(status?.payload).toMatchObject({
      sha,
      name: "acme/blueprints",
      state: "success",
      context: "ci/jenkins",
      description: "passed",
      commit: { sha },
      branches: [{ name: "drafts/st/ws", commit: { sha }, protected: false }],
      repository: { full_name: "acme/blueprints" },
    });
  });

  it("reports collaborator permission levels", async () => {
    w.forge.createUser("admin1");
    w.forge.setPermission("acme/blueprints", "admin1", "admin");
    w.forge.createUser("writer");
    w.forge.setPermission("acme/blueprints", "writer", "write");
    w.forge.createUser("stranger");
    const level = async (username: string) =>
      (await w.octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data.permission;
    expect([
      await level("admin1"),
      await level("writer"),
      await level("reader"),
      await level("stranger"),
    ]).toEqual(["admin", "write", "read", "none"]);
  });

  it("compares two commits", async () => {
    const { data } = await w.octokit.rest.repos.compareCommitsWithBasehead({
      ...repo,
      basehead: "main...drafts/pkg/ws",
    });
    expect(data).toMatchObject({ status: "ahead", ahead_by: 1, behind_by: 0, total_commits: 1 });
    expect(data.files?.map((f) => f.filename)).toEqual(["pkg/Kptfile"]);
  });

  it("paginates lists with GitHub's Link header (octokit.paginate)", async () => {
    for (let i = 0; i < 7; i++) await w.octokit.rest.issues.create({ ...repo, title: `issue ${i}` });
    const first = await w.octokit.rest.issues.listForRepo({ ...repo, per_page: 3 });
    expect(first.headers.link).toMatch(/rel="next".*rel="last"/);
    const all = await w.octokit.paginate(w.octokit.rest.issues.listForRepo, {
      ...repo,
      per_page: 3,
      state: "all",
    });
    expect(all).toHaveLength(8);
  });
});
