import { describe, expect, it } from "vitest";
import { kptfile, pipeline } from "../util/krm.js";
import { branchHead, sweepWrites, useWorld } from "./harness.js";

const KPTFILE = kptfile(
  "web",
  pipeline(["ghcr.io/kptdev/krm-functions-catalog/apply-setters:v0.2.0", { tier: "web" }]),
);
/** A ConfigMap whose `tier` apply-setters sets: one info result ("set field value to …") per file. */
const settings = (name: string, extra = "") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  tier: web # kpt-set: \${tier}\n${extra}`;

/**
 * A draft with its proposal open, over real HTTP and git: each head's `porchlight/render` is the draft
 * render's, written once (the proposal check does not write it a second time), its info results
 * annotated on the files the push changed; and a sweep afterwards finds the head rendered and writes
 * nothing.
 */
const [owner, repo] = ["acme", "blueprints"];
const branch = "drafts/apps/web/v1";

/** A world whose repository runs no guardrails, and every run of a check on a commit of it. */
function proposalWorld() {
  const w = useWorld({ ".github/porchlight.yml": "guardrails: []\n" });
  const rest = () => w.users.alice!.rest;
  /** Every run of a check on `sha`, the replaced ones too (GitHub's `filter=all`). */
  const allRuns = async (sha: string, name: string) =>
    (await rest().checks.listForRef({ owner, repo, ref: sha, check_name: name, filter: "all" })).data
      .check_runs;
  return { w, rest, allRuns };
}

describe("a draft's proposal: the draft render's check stands on each head (forge over HTTP and git)", () => {
  const { w, rest, allRuns } = proposalWorld();
  const annotatedPaths = async (runId: number) =>
    (await rest().checks.listAnnotations({ owner, repo, check_run_id: runId, per_page: 100 })).data
      .map((a) => `${a.path} ${a.annotation_level}`)
      .sort();

  it("a push to the draft: one render run on the head, annotating what the push changed; a sweep writes nothing", async () => {
    const alice = await w.clone("alice");
    await alice.push(branch, {
      "apps/web/Kptfile": KPTFILE,
      "apps/web/a.yaml": settings("a"),
      "apps/web/b.yaml": settings("b"),
      "apps/web/c.yaml": settings("c"),
    });
    await w.settle();
    await rest().pulls.create({ owner, repo, head: branch, base: "main", title: "web" });
    await w.settle();
    const opened = await branchHead(w, branch);
    const [first, ...replaced] = await allRuns(opened, "porchlight/render");
    expect(replaced).toEqual([]);
    expect(first?.conclusion).toBe("success");
    expect(await annotatedPaths(first?.id ?? 0)).toEqual([
      "apps/web/a.yaml notice",
      "apps/web/b.yaml notice",
      "apps/web/c.yaml notice",
    ]);

    await alice.push(branch, { "apps/web/b.yaml": settings("b", "  size: small\n") }, `origin/${branch}`);
    await w.settle();
    const edited = await branchHead(w, branch);
    expect(edited).not.toBe(opened);
    const runs = await allRuns(edited, "porchlight/render");
    expect(runs.map((r) => r.conclusion)).toEqual(["success"]);
    expect(await annotatedPaths(runs[0]?.id ?? 0)).toEqual(["apps/web/b.yaml notice"]);
    expect(runs[0]?.output.summary).toContain("2 info results are on files this commit did not change");
    const guardrails = await allRuns(edited, "porchlight/guardrails");
    expect(guardrails.map((r) => r.conclusion)).toEqual(["success"]);

    expect(await sweepWrites(w)).toEqual([]);
  }, 120_000);
});

/**
 * GitHub sends a push's events in no set order: the proposal's `synchronize` may come before the draft's
 * `push`. Its check then finds a head no render reached, whose render writes back: it renders the draft
 * first (the push's render job after it finds the head rendered), and checks the head the render left.
 */
describe("a draft's proposal told of a push before the draft is (forge over HTTP and git)", () => {
  const { w, rest, allRuns } = proposalWorld();
  const delivery = (event: string, action: string | undefined, after: string) =>
    w.forge.waitFor(
      () =>
        w.forge.webhooks.find(event, action).find((d) => {
          const p = d.payload as { after?: string; pull_request?: { head: { sha: string } } };
          return (p.after ?? p.pull_request?.head.sha) === after;
        }),
      `the ${event} delivery of ${after}`,
    );

  it("the pushed head gets the draft render's check and guardrails passed over; the render's commit is checked once", async () => {
    const alice = await w.clone("alice");
    await alice.push(branch, { "apps/web/Kptfile": KPTFILE, "apps/web/a.yaml": settings("a") });
    await w.settle();
    const { data: pr } = await rest().pulls.create({ owner, repo, head: branch, base: "main", title: "web" });
    await w.settle();

    // The app hears nothing while alice pushes a file the render rewrites (apply-setters sets its tier)…
    w.forge.setWebhookUrl(null);
    const pushed = await alice.push(
      branch,
      { "apps/web/b.yaml": settings("b").replace("tier: web", "tier: api") },
      `origin/${branch}`,
    );
    const [sync, push] = [
      await delivery("pull_request", "synchronize", pushed),
      await delivery("push", undefined, pushed),
    ];
    // …then hears the proposal's event first, the push's after it.
    const from = w.forge.requestLog.entries.length;
    w.forge.setWebhookUrl(w.app.webhookUrl);
    w.forge.webhooks.redeliver(sync.id);
    await w.settle();
    w.forge.webhooks.redeliver(push.id);
    await w.settle();

    const head = await branchHead(w, branch);
    expect(head).not.toBe(pushed);
    const commit = await rest().repos.getCommit({ owner, repo, ref: head });
    expect(commit.data.parents.map((p) => p.sha)).toEqual([pushed]);
    // The pushed head: the draft render's check alone (never "differs from the rendered output"), and
    // guardrails naming the head checked instead.
    const pushedRender = await allRuns(pushed, "porchlight/render");
    expect(pushedRender.map((r) => [r.conclusion, r.output.title])).toEqual([
      ["success", `Rendered apps/web: pushed ${head.slice(0, 7)}`],
    ]);
    const pushedGuardrails = await allRuns(pushed, "porchlight/guardrails");
    expect(pushedGuardrails.map((r) => [r.conclusion, r.output.title])).toEqual([
      ["neutral", `Not checked: ${head.slice(0, 7)} was checked instead`],
    ]);
    // The proposal's head: both checks, once each; the summary describes it, edited once.
    expect((await allRuns(head, "porchlight/render")).map((r) => r.conclusion)).toEqual(["success"]);
    expect((await allRuns(head, "porchlight/guardrails")).map((r) => r.conclusion)).toEqual(["success"]);
    const comments = await rest().issues.listComments({ owner, repo, issue_number: pr.number });
    const summaries = comments.data.filter((c) => c.body?.includes("<!-- porchlight:summary -->"));
    expect(summaries.map((c) => c.body?.includes(`head=${head}`))).toEqual([true]);
    const writes = w.forge.requestLog.entries
      .slice(from)
      .filter((e) => e.login !== "alice" && e.method !== "GET" && !e.route.includes("access_tokens"))
      .filter((e) => !e.route.endsWith("git-upload-pack"))
      .map((e) => `${e.method} ${e.route}`)
      .sort();
    expect(writes).toEqual([
      "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
      "POST /repos/{owner}/{repo}/check-runs",
      "POST /repos/{owner}/{repo}/check-runs",
      "POST /repos/{owner}/{repo}/check-runs",
      "POST /repos/{owner}/{repo}/check-runs",
      "POST /{owner}/{repo}.git/git-receive-pack",
    ]);
  }, 120_000);
});
