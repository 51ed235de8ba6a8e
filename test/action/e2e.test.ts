import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAction } from "../../src/action/run.js";
import { main } from "../../src/cli/main.js";
import { formatHelp } from "../../src/commands/help.js";
import { startWorld, type World } from "../e2e/harness.js";
import { docBlock, shellSteps } from "../util/doc-blocks.js";
import { nginxDeployment, nginxKptfile } from "../util/krm.js";
import { captureIO } from "./helpers.js";
import { onForge, recorded } from "./payloads.js";

const KPTFILE = nginxKptfile();
const deployment = (tag: string) => nginxDeployment(tag);

/**
 * The Actions entry point on GitHub's recorded event payloads (from @octokit/webhooks-examples),
 * moved onto a repository of the embedded forge: the forge plays api.github.com, an app named
 * github-actions plays the Actions app whose installation token is the workflow's GITHUB_TOKEN, and
 * no webhook reaches any app: each run is started by hand, as a runner starts a workflow.
 */
describe("porchlight as a GitHub Action on recorded events", () => {
  let w: World;
  let token: () => string;
  const temp = mkdtempSync(join(tmpdir(), "porchlight-action-e2e-"));
  const [owner, repo] = ["acme", "blueprints"];
  let runs = 0;
  const rest = (user = "alice") => w.users[user]!.rest;
  const head = async (branch: string) =>
    (await rest().git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;
  const checks = async (sha: string) =>
    (await rest().checks.listForRef({ owner, repo, ref: sha })).data.check_runs.map((r) => [
      r.name,
      r.conclusion,
    ]);
  const comments = async (n: number) =>
    (await rest().issues.listComments({ owner, repo, issue_number: n })).data.map((c) => c.body ?? "");
  const forgeRepo = () => ({
    owner,
    name: repo,
    cloneUrl: w.forge.cloneUrl(`${owner}/${repo}`),
    htmlUrl: `${w.forge.url}/${owner}/${repo}`,
  });
  const sender = (login: string) => ({ sender: { login, type: "User" } });

  /**
   * One workflow run: GitHub's environment for the step, the event file, then `porchlight action`;
   * with `command` (a docs/actions.md line, as the workflow's step runs it), through the command line.
   */
  const act = async (
    event: string,
    payload: Record<string, unknown> | null,
    extra: NodeJS.ProcessEnv = {},
    command?: string,
  ) => {
    runs++;
    const path = join(temp, `event-${runs}.json`);
    if (payload) writeFileSync(path, JSON.stringify(payload));
    const out: string[] = [];
    const env = {
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: path,
      GITHUB_TOKEN: token(),
      GITHUB_API_URL: w.forge.apiUrl,
      GITHUB_REPOSITORY: `${owner}/${repo}`,
      GITHUB_RUN_ID: String(1000 + runs),
      GITHUB_RUN_ATTEMPT: "1",
      RUNNER_TEMP: temp,
      ...extra,
    };
    if (command !== undefined) {
      const [bin, ...args] = command.split(/\s+/);
      expect(bin).toBe("porchlight");
      const io = { ...captureIO(), env };
      const code = await main(args, { ...io, stdout: (t: string) => out.push(t) });
      return { code, out: out.join("") };
    }
    const code = await runAction({
      env,
      stdout: (t) => out.push(t),
      log: pino({ level: process.env.E2E_LOG ?? "silent" }),
      writeIntervalMs: 0,
      retryAfterUnitMs: 1,
    });
    return { code, out: out.join("") };
  };

  beforeAll(async () => {
    w = await startWorld({
      "apps/web/Kptfile": KPTFILE,
      "apps/web/deployment.yaml": deployment("1.27"),
    });
    // No webhooks: on Actions, the runner starts porchlight, not a delivery.
    w.forge.setWebhookUrl(null);
    await w.settle();
    const actionsApp = w.forge.createApp({ name: "github-actions", owner });
    const inst = w.forge.createInstallation(actionsApp.appId, owner);
    token = () => w.forge.installationToken(inst.id);
  });
  afterAll(async () => {
    await w?.stop();
    rmSync(temp, { recursive: true, force: true });
  });

  let draftHead = "";
  let pull = 0;

  it("push to a draft: renders it, commits as github-actions[bot], with the render check", async () => {
    const pushed = await (await w.clone("alice")).push("drafts/apps/web/first", {
      "apps/web/deployment.yaml": deployment("1.25"),
    });
    const payload = onForge(recorded("push"), forgeRepo(), {
      ref: "refs/heads/drafts/apps/web/first",
      after: pushed,
      deleted: false,
      created: true,
      commits: [],
      ...sender("alice"),
    });
    // What porchlight.yml's step runs (docs/actions.md), as it runs it.
    const step = shellSteps(docBlock("docs/actions.md", "porchlight action"))[0]?.line;
    const { code, out } = await act("push", payload, {}, step);
    expect(out).toBe("porchlight: push on acme/blueprints: 1 job(s) run (render), 0 failed — ok\n");
    expect(code).toBe(0);
    draftHead = await head("drafts/apps/web/first");
    expect(draftHead).not.toBe(pushed);
    const commit = (await rest().repos.getCommit({ owner, repo, ref: draftHead })).data;
    expect(commit.commit.author?.name).toBe("github-actions[bot]");
    expect(commit.parents.map((p) => p.sha)).toEqual([pushed]);
    expect(await checks(draftHead)).toEqual([["porchlight/render", "success"]]);
  });

  it("pull_request.opened: checks the proposal and writes its summary", async () => {
    pull = (
      await rest().pulls.create({ owner, repo, head: "drafts/apps/web/first", base: "main", title: "web" })
    ).data.number;
    const payload = onForge(recorded("pull_request", "opened"), forgeRepo(), {
      number: pull,
      pull_request: {
        number: pull,
        head: { sha: draftHead, ref: "drafts/apps/web/first" },
        base: { ref: "main", sha: await head("main") },
      },
      ...sender("alice"),
    });
    const { code, out } = await act("pull_request", payload);
    expect(out).toMatch(
      /^porchlight: pull_request on acme\/blueprints: \d+ job\(s\) run \(check\b.*\), 0 failed — ok\n$/,
    );
    expect(code).toBe(0);
    expect((await checks(draftHead)).sort()).toEqual([
      ["porchlight/guardrails", "success"],
      ["porchlight/render", "success"],
    ]);
    const summaries = (await comments(pull)).filter((c) => c.includes("porchlight:summary"));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toContain("apps/web/v1");
  });

  it("issue_comment.created: answers /help with the help text, after reacting", async () => {
    const { data: comment } = await rest().issues.createComment({
      owner,
      repo,
      issue_number: pull,
      body: "/help",
    });
    const payload = onForge(recorded("issue_comment", "created"), forgeRepo(), {
      issue: {
        number: pull,
        pull_request: { url: `${w.forge.apiUrl}/repos/${owner}/${repo}/pulls/${pull}` },
      },
      comment: { id: comment.id, body: "/help", user: { login: "alice", type: "User" } },
      ...sender("alice"),
    });
    const { code } = await act("issue_comment", payload);
    expect(code).toBe(0);
    const reply = (await comments(pull)).find((c) => c.includes(`reply comment=${comment.id}`));
    expect(reply).toContain(formatHelp());
    const reactions = await rest().reactions.listForIssueComment({ owner, repo, comment_id: comment.id });
    expect(reactions.data.map((r) => [r.content, r.user?.login])).toEqual([["eyes", "github-actions[bot]"]]);
  });

  it("pull_request_review.submitted: an approval by a writer publishes: merged, tagged v1", async () => {
    const { data: review } = await rest("bob").pulls.createReview({
      owner,
      repo,
      pull_number: pull,
      event: "APPROVE",
      commit_id: draftHead,
    });
    const payload = onForge(recorded("pull_request_review", "submitted"), forgeRepo(), {
      review: {
        id: review.id,
        state: "approved",
        user: { login: "bob", type: "User" },
        commit_id: draftHead,
      },
      pull_request: {
        number: pull,
        head: { sha: draftHead, ref: "drafts/apps/web/first" },
        base: { ref: "main", sha: await head("main") },
      },
      ...sender("bob"),
    });
    const { code, out } = await act("pull_request_review", payload);
    expect(out).toMatch(/job\(s\) run \(publish, fanout\), 0 failed — ok\n$/);
    expect(code).toBe(0);
    const pr = (await rest().pulls.get({ owner, repo, pull_number: pull })).data;
    expect(pr.merged).toBe(true);
    const tag = await rest().git.getRef({ owner, repo, ref: "tags/apps/web/v1" });
    expect(tag.data.object.sha).toBe(pr.merge_commit_sha);
    // The fan-out job after the publish recorded the revision in the catalog, as the app does.
    const catalog = await rest().repos.getContent({
      owner,
      repo,
      path: "catalog.yaml",
      ref: "porchlight/catalog",
    });
    const text = Buffer.from((catalog.data as { content: string }).content, "base64").toString("utf8");
    expect(text).toContain("apps/web");
  });

  it("schedule: the reconcile renders a draft whose push no run saw", async () => {
    const pushed = await (await w.clone("alice")).push("drafts/apps/web/missed", {
      "apps/web/deployment.yaml": deployment("1.20"),
    });
    const step = shellSteps(docBlock("docs/actions.md", "porchlight action reconcile"))[0]?.line;
    const { code, out } = await act("schedule", { schedule: "23 * * * *" }, {}, step);
    expect(out).toMatch(
      /^porchlight: reconcile on acme\/blueprints: \d+ job\(s\) run \(reconcile\b.*\), 0 failed; \d+ draft\(s\) and 0 proposal\(s\) reconciled — ok\n$/,
    );
    expect(code).toBe(0);
    const rendered = await head("drafts/apps/web/missed");
    expect(rendered).not.toBe(pushed);
    expect(await checks(rendered)).toEqual([["porchlight/render", "success"]]);
  });

  it("a job that fails fails the step, with an ::error:: naming the job", async () => {
    const n = (
      await rest().pulls.create({
        owner,
        repo,
        head: "drafts/apps/web/missed",
        base: "main",
        title: "missed",
      })
    ).data.number;
    const sha = await head("drafts/apps/web/missed");
    const fault = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/check-runs",
      method: "POST",
      status: 422,
      message: "Validation Failed",
    });
    try {
      const payload = onForge(recorded("pull_request", "opened"), forgeRepo(), {
        number: n,
        pull_request: {
          number: n,
          head: { sha, ref: "drafts/apps/web/missed" },
          base: { ref: "main", sha: await head("main") },
        },
      });
      const summaryFile = join(temp, "step-summary.md");
      const { code, out } = await act("pull_request", payload, { GITHUB_STEP_SUMMARY: summaryFile });
      expect(code).toBe(1);
      expect(readFileSync(summaryFile, "utf8")).toMatch(
        new RegExp(
          `^❌ porchlight: pull_request .*1 failed\\n\\n- \\*\\*porchlight check failed\\*\\*: acme/blueprints: the check job \\(${n}\\)`,
        ),
      );
      expect(out).toMatch(
        new RegExp(
          `^::error title=porchlight check failed::acme/blueprints: the check job \\(${n}\\) failed: .*Validation Failed`,
          "m",
        ),
      );
      expect(out).toMatch(/job\(s\) run \(check\b.*\), 1 failed\n$/);
      expect(out).not.toContain(token());
    } finally {
      w.forge.faults.remove(fault);
    }
  });
});
