import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/index.js";
import { formatDeletionProposal } from "../../src/lifecycle/revision-deletion.js";
import { NO_PRIVILEGED, nginxDeployment, nginxKptfile } from "../util/krm.js";
import { commentsOn, tagsOf, useWorld } from "./harness.js";

const KPTFILE = nginxKptfile();
const deployment = (tag: string, extra = "") => nginxDeployment(tag, "web", extra);
const POLICY = NO_PRIVILEGED;
const CONFIG = `guardrails:
  - name: no-privileged
    image: starlark
    configPath: policies/no-privileged.yaml
`;

describe("porchlight bot end to end (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const pulls = (user = "alice") => w.users[user]!.rest.pulls;
  const issues = (user = "alice") => w.users[user]!.rest.issues;
  const comments = (n: number) => commentsOn(w, n);
  const checks = async (sha: string) =>
    (await w.users.alice!.rest.checks.listForRef({ owner, repo, ref: sha })).data.check_runs;
  const tags = () => tagsOf(w);
  const head = async (branch: string) =>
    (await w.users.alice!.rest.git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;
  const propose = async (branch: string) => {
    const { data } = await pulls().create({
      owner,
      repo,
      head: branch,
      base: "main",
      title: `Propose ${branch}`,
    });
    await w.settle();
    return data.number;
  };
  const say = async (user: string, n: number, body: string) => {
    const { data } = await issues(user).createComment({ owner, repo, issue_number: n, body });
    await w.settle();
    const reply = (await comments(n)).find((c) => c.includes(`reply comment=${data.id}`));
    return { id: data.id, reply: reply ?? "" };
  };

  const w = useWorld({
    ".github/porchlight.yml": CONFIG,
    "policies/no-privileged.yaml": POLICY,
    "apps/web/Kptfile": KPTFILE,
    "apps/web/deployment.yaml": deployment("1.27"),
  });

  let first: number;
  let renderCommit: string;

  it("renders a pushed draft: one bot commit, the check annotated at the file and line", async () => {
    const alice = await w.clone("alice");
    const pushed = await alice.push("drafts/apps/web/first", {
      "apps/web/deployment.yaml": deployment("1.25"),
    });
    await w.settle();
    renderCommit = await head("drafts/apps/web/first");
    expect(renderCommit).not.toBe(pushed);
    const commit = await w.users.alice!.rest.repos.getCommit({ owner, repo, ref: renderCommit });
    expect(commit.data.commit.author?.name).toBe("porchlight[bot]");
    const content = await w.users.alice!.rest.repos.getContent({
      owner,
      repo,
      path: "apps/web/deployment.yaml",
      ref: renderCommit,
    });
    const text = Buffer.from((content.data as { content: string }).content, "base64").toString("utf8");
    expect(text).toContain("nginx:1.27");
    const [run] = await checks(renderCommit);
    expect(run).toMatchObject({ name: "porchlight/render", conclusion: "success" });
    const annotations = await w.users.alice!.rest.checks.listAnnotations({
      owner,
      repo,
      check_run_id: run!.id,
    });
    expect(annotations.data).toContainEqual(
      expect.objectContaining({
        path: "apps/web/deployment.yaml",
        start_line: 9,
        annotation_level: "notice",
      }),
    );
    // The bot's own push did not start another render (no loop): one commit on top of alice's.
    expect(commit.data.parents.map((p) => p.sha)).toEqual([pushed]);
  });

  it("refuses a draft package (no pipeline) holding a YAML file that is not KRM: no bot commit, the check names the file", async () => {
    const alice = await w.clone("alice");
    const pushed = await alice.push("drafts/apps/plain/values", {
      "apps/plain/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: plain\n",
      "apps/plain/values.yaml": "replicas: 3\n",
    });
    await w.settle();
    expect(await head("drafts/apps/plain/values")).toBe(pushed);
    const [run] = await checks(pushed);
    expect(run).toMatchObject({ name: "porchlight/render", conclusion: "failure" });
    expect(`${run!.output.title} ${run!.output.summary} ${run!.output.text ?? ""}`).toContain(
      "input resource list must contain only KRM resources: values.yaml: resource must have `apiVersion`",
    );
  });

  it("checks the proposal and writes one summary naming the revision it publishes as", async () => {
    first = await propose("drafts/apps/web/first");
    const runs = await checks(renderCommit);
    expect(runs.map((r) => [r.name, r.conclusion]).sort()).toEqual([
      ["porchlight/guardrails", "success"],
      ["porchlight/render", "success"],
    ]);
    const summaries = (await comments(first)).filter((c) => c.includes("porchlight:summary"));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toContain("apps/web/v1");
  });

  it("refuses a reader's /approve, after reacting at once", async () => {
    const { id, reply } = await say("rita", first, "/approve");
    expect(reply).toContain("needs write permission");
    const reactions = await issues().listComments({ owner, repo, issue_number: first });
    expect(reactions.data.length).toBeGreaterThan(0);
    const eyes = await w.users.alice!.rest.reactions.listForIssueComment({ owner, repo, comment_id: id });
    expect(eyes.data.map((r) => r.content)).toContain("eyes");
  });

  it("publishes on an approving review: merges the reviewed head and tags v1 on the merge commit", async () => {
    await pulls("bob").createReview({
      owner,
      repo,
      pull_number: first,
      event: "APPROVE",
      commit_id: renderCommit,
    });
    await w.settle();
    const pr = (await pulls().get({ owner, repo, pull_number: first })).data;
    expect(pr.merged).toBe(true);
    const merge = await w.users.alice!.rest.repos.getCommit({ owner, repo, ref: pr.merge_commit_sha! });
    expect(merge.data.parents.map((p) => p.sha)).toContain(renderCommit);
    expect((await tags())["apps/web/v1"]).toBe(pr.merge_commit_sha);
    expect((await comments(first)).some((c) => c.includes("`apps/web/v1`"))).toBe(true);
    // Published drafts disappear, as in Porch: the draft branch is deleted after the merge and tag.
    await expect(head("drafts/apps/web/first")).rejects.toMatchObject({ status: 404 });
  });

  it("an approving review delivered again is answered once, without listing the comments again", async () => {
    const delivery = w.forge.webhooks
      .find("pull_request_review", "submitted")
      .find((d) => (d.payload as { pull_request: { number: number } }).pull_request.number === first)!;
    const from = w.forge.requestLog.entries.length;
    w.forge.webhooks.redeliver(delivery.id);
    await w.settle();
    expect((await comments(first)).filter((c) => c.includes("porchlight:publish review="))).toHaveLength(1);
    expect(Object.keys(await tags())).toEqual(["apps/web/v1"]);
    // the app found its answer in what it listed and wrote before: GitHub is not asked again
    const asked = w.forge.requestLog.entries
      .slice(from)
      .filter((e) => e.installationId !== null && /\/issues\/\d+\/comments/.test(e.path));
    expect(asked.map((e) => `${e.method} ${e.path}`)).toEqual([]);
  });

  it("an answer a person rewrote is no longer the app's: the review delivered again is answered anew", async () => {
    const answer = (
      await w.users.alice!.rest.issues.listComments({ owner, repo, issue_number: first })
    ).data.find((c) => c.body?.includes("porchlight:publish review="))!;
    await issues().updateComment({ owner, repo, comment_id: answer.id, body: "Published, thanks!" });
    await w.settle();
    const delivery = w.forge.webhooks
      .find("pull_request_review", "submitted")
      .find((d) => (d.payload as { pull_request: { number: number } }).pull_request.number === first)!;
    w.forge.webhooks.redeliver(delivery.id);
    await w.settle();
    // as GitHub lists the comments, the review had no answer: one now, the revision published once
    const answers = (await comments(first)).filter((c) => c.includes("porchlight:publish review="));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain("`apps/web/v1`");
    expect(Object.keys(await tags())).toEqual(["apps/web/v1"]);
  });

  it("publishes v2 on /approve, and a /approve delivered three times still gives one tag and one reply", async () => {
    await (await w.clone("alice")).push("drafts/apps/web/second", {
      "apps/web/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n",
    });
    await w.settle();
    const n = await propose("drafts/apps/web/second");
    const { id, reply } = await say("bob", n, "/approve");
    expect(reply).toContain("`apps/web/v2`");
    const delivery = w.forge.webhooks
      .find("issue_comment", "created")
      .find((d) => (d.payload as { comment: { id: number } }).comment.id === id)!;
    for (let i = 0; i < 3; i++) w.forge.webhooks.redeliver(delivery.id);
    await w.settle();
    expect(Object.keys(await tags()).sort()).toEqual(["apps/web/v1", "apps/web/v2"]);
    expect((await comments(n)).filter((c) => c.includes(`reply comment=${id}`))).toHaveLength(1);
  });

  it("refuses a review of a head that has moved since", async () => {
    const alice = await w.clone("alice");
    const old = await alice.push("drafts/apps/web/third", {
      "apps/web/deployment.yaml": deployment("1.27", "# one\n"),
    });
    await w.settle();
    const n = await propose("drafts/apps/web/third");
    const reviewed = (await pulls().get({ owner, repo, pull_number: n })).data.head.sha;
    await alice.push(
      "drafts/apps/web/third",
      { "apps/web/deployment.yaml": deployment("1.27", "# two\n") },
      "origin/drafts/apps/web/third",
    );
    await w.settle();
    await pulls("bob").createReview({ owner, repo, pull_number: n, event: "APPROVE", commit_id: reviewed });
    await w.settle();
    expect(old).toBeDefined();
    expect((await pulls().get({ owner, repo, pull_number: n })).data.merged).toBe(false);
    expect((await comments(n)).some((c) => c.includes("newer push"))).toBe(true);
  });

  it("fails a proposal on a guardrail, and /approve says the check is not green", async () => {
    await (await w.clone("alice")).push("drafts/apps/web/bad", {
      "apps/web/priv.yaml":
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: priv\ndata:\n  privileged: "true"\n',
    });
    await w.settle();
    const n = await propose("drafts/apps/web/bad");
    const head = (await pulls().get({ owner, repo, pull_number: n })).data.head.sha;
    const guard = (await checks(head)).find((r) => r.name === "porchlight/guardrails");
    expect(guard?.conclusion).toBe("failure");
    const { reply } = await say("bob", n, "/approve");
    expect(reply).toContain("porchlight/guardrails is not green");
  });

  it("/reject closes the proposal and keeps its draft branch; unknown verbs get the nearest one", async () => {
    const open = (await pulls().list({ owner, repo, state: "open" })).data.find(
      (p) => p.head.ref === "drafts/apps/web/bad",
    )!;
    expect((await say("bob", open.number, "/aprove")).reply).toContain("did you mean `/approve`");
    expect((await say("bob", open.number, "/reject")).reply).toContain("Returned to draft");
    expect((await pulls().get({ owner, repo, pull_number: open.number })).data.state).toBe("closed");
    expect(await head("drafts/apps/web/bad")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("an approving review of a revision's deletion proposal deletes that tag alone; the proposal closes unmerged", async () => {
    const before = await tags();
    const v1 = before["apps/web/v1"]!;
    const gh = w.users.alice!.rest;
    // the proposal as `rpkg propose-delete` makes it: Porch's branch, one empty commit on the tagged commit
    const tagged = await gh.git.getCommit({ owner, repo, commit_sha: v1 });
    const commit = await gh.git.createCommit({
      owner,
      repo,
      message: "Propose deleting revision apps/web/v1",
      tree: tagged.data.tree.sha,
      parents: [v1],
    });
    const branch = "deletionProposed/apps/web/first";
    await gh.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: commit.data.sha });
    const text = formatDeletionProposal({ package: "apps/web", workspace: "first", revision: 1, commit: v1 });
    const { data: pr } = await pulls().create({ owner, repo, head: branch, base: "main", ...text });
    await issues().addLabels({ owner, repo, issue_number: pr.number, labels: ["porchlight/deletion"] });
    await w.settle();
    await pulls("bob").createReview({ owner, repo, pull_number: pr.number, event: "APPROVE" });
    await w.settle();
    const after = await tags();
    expect(after["apps/web/v1"]).toBeUndefined();
    expect(after["apps/web/v2"]).toBe(before["apps/web/v2"]);
    const closed = (await pulls().get({ owner, repo, pull_number: pr.number })).data;
    expect(closed).toMatchObject({ state: "closed", merged: false });
    expect((await comments(pr.number)).join("\n")).toContain("Deleted revision **apps/web/v1**");
    await expect(gh.git.getRef({ owner, repo, ref: `heads/${branch}` })).rejects.toMatchObject({
      status: 404,
    });
    // the package stays on main
    expect((await gh.repos.getContent({ owner, repo, path: "apps/web/Kptfile", ref: "main" })).status).toBe(
      200,
    );
  });

  it("/propose-delete opens a labelled deletion proposal; approving it removes the package and keeps its tags", async () => {
    const { reply } = await say("bob", first, "/propose-delete");
    expect(reply).toContain("Proposed deleting **apps/web**");
    const deletion = (await pulls().list({ owner, repo, state: "open" })).data.find((p) =>
      p.labels.some((l) => l.name === "porchlight/deletion"),
    )!;
    expect(deletion.head.ref).toBe("drafts/apps/web/delete-v2");
    await w.settle();
    const { reply: done } = await say("bob", deletion.number, "/approve");
    expect(done).toContain("Deleted **apps/web**");
    await expect(
      w.users.alice!.rest.repos.getContent({ owner, repo, path: "apps/web/Kptfile", ref: "main" }),
    ).rejects.toMatchObject({ status: 404 });
    // its revision deleted on its own above, v1 is gone; v2 keeps its tag
    expect(Object.keys(await tags()).sort()).toEqual(["apps/web/v2"]);
    // The catalog keeps the package's history and says, in the same job, that no revision will come.
    const catalog = await w.users.alice!.rest.repos.getContent({
      owner,
      repo,
      path: "catalog.yaml",
      ref: "porchlight/catalog",
    });
    const pkg = parseCatalog(
      Buffer.from((catalog.data as { content: string }).content, "base64").toString("utf8"),
    ).catalog.packages.find((p) => p.name === "apps/web");
    // (v1 left it when its own deletion was approved, above)
    expect(pkg?.revisions.map((r) => r.revision)).toEqual(["v2"]);
    expect(pkg?.deprecations).toEqual([
      {
        reference: { schema: "olm.package" },
        message: expect.stringMatching(
          new RegExp(
            `^deleted: #${deletion.number} removed apps/web \\(merge [0-9a-f]{7}\\); it gets no new revision$`,
          ),
        ),
      },
    ]);
  });

  it("serves /healthz and /metrics", async () => {
    expect((await fetch(`${w.app.url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${w.app.url}/metrics`)).text();
    expect(metrics).toMatch(/porchlight_webhooks_received_total\{event="push"\} \d+/);
    expect(metrics).toContain("porchlight_jobs_total");
  });
});
