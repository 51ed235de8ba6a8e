import { afterAll, describe, expect, it } from "vitest";
import { packageVariant } from "../util/krm.js";
import {
  branchHead,
  checkRuns,
  commentsOn,
  fileOf,
  sweep,
  tagsOf,
  useWorld,
  WEB_KPTFILE,
  webSettings,
} from "./harness.js";

const GOOD_CONFIG = "mergeMethod: merge\n";
const BROKEN_CONFIG = "mergeMethod: merge\nrequiredApprovals: lots\n";
const VARIANT = packageVariant({ name: "c1", upstream: "apps/web", repo: "cluster-01", package: "web" });

/**
 * What the bot does when things go wrong: a broken configuration, a rollback, GitHub's secondary rate
 * limit, a crash between publishing steps. One forge and app for the file; each test builds on the
 * repository the previous one left.
 */
describe("porchlight bot recovers (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = (user = "alice") => w.users[user]!.rest;
  const comments = (n: number) => commentsOn(w, n);
  const tags = () => tagsOf(w, "apps/web/");
  const text = async (path: string, ref: string, r = repo) =>
    (await fileOf(w, `${owner}/${r}`, path, ref)).text;
  const packageFiles = async (ref: string) => {
    const { data } = await rest().git.getTree({ owner, repo, tree_sha: ref, recursive: "true" });
    return Object.fromEntries(
      data.tree
        .filter((e) => e.type === "blob" && e.path?.startsWith("apps/web/"))
        .map((e) => [e.path, e.sha]),
    );
  };
  const writeMain = async (path: string, content: string) => {
    const sha = await rest()
      .repos.getContent({ owner, repo, path, ref: "main" })
      .then(({ data }) => (data as { sha: string }).sha)
      .catch(() => undefined);
    await rest().repos.createOrUpdateFileContents({
      owner,
      repo,
      path,
      message: `edit ${path}`,
      content: Buffer.from(content).toString("base64"),
      ...(sha ? { sha } : {}),
    });
    await w.settle();
  };
  const push = async (branch: string, files: Record<string, string>) => {
    const sha = await (await w.clone("alice")).push(branch, files);
    await w.settle();
    return sha;
  };
  const propose = async (branch: string) => {
    const { data } = await rest().pulls.create({ owner, repo, head: branch, base: "main", title: branch });
    await w.settle();
    return data.number;
  };
  const say = async (user: string, n: number, body: string) => {
    const { data } = await rest(user).issues.createComment({ owner, repo, issue_number: n, body });
    await w.settle();
    return (await comments(n)).find((c) => c.includes(`reply comment=${data.id}`)) ?? "";
  };

  const w = useWorld({
    ".github/porchlight.yml": GOOD_CONFIG,
    "apps/web/Kptfile": WEB_KPTFILE,
    "apps/web/cm.yaml": webSettings("0"),
  });
  afterAll(async () => {
    expect(w.forge.errors).toEqual([]);
  });

  it("a broken .github/porchlight.yml fails porchlight/config at its file and line, stops the bot, and fixing it resumes", async () => {
    await writeMain(".github/porchlight.yml", BROKEN_CONFIG);
    const [config] = (await checkRuns(w, "main")).filter((r) => r.name === "porchlight/config");
    expect(config).toMatchObject({ conclusion: "failure" });
    expect(config!.output.summary).toContain(
      '.github/porchlight.yml:2:20: requiredApprovals: must be a number, not "lots"',
    );
    const annotations = await rest().checks.listAnnotations({ owner, repo, check_run_id: config!.id });
    expect(annotations.data).toEqual([
      expect.objectContaining({ path: ".github/porchlight.yml", start_line: 2, annotation_level: "failure" }),
    ]);

    // Nothing else happens on the repository: a pushed draft is not rendered, only told why.
    const pushed = await push("drafts/apps/web/first", { "apps/web/cm.yaml": webSettings("1") });
    expect(await branchHead(w, "drafts/apps/web/first")).toBe(pushed);
    expect((await checkRuns(w, pushed)).map((r) => [r.name, r.conclusion])).toEqual([
      ["porchlight/config", "failure"],
    ]);

    // Fixed on main: the check turns green and the draft left waiting is rendered now.
    await writeMain(".github/porchlight.yml", GOOD_CONFIG);
    expect((await checkRuns(w, "main")).find((r) => r.name === "porchlight/config")?.conclusion).toBe(
      "success",
    );
    const rendered = await branchHead(w, "drafts/apps/web/first");
    expect(rendered).not.toBe(pushed);
    expect(await text("apps/web/cm.yaml", rendered)).toContain("team: web");
    expect((await checkRuns(w, rendered)).find((r) => r.name === "porchlight/render")?.conclusion).toBe(
      "success",
    );
  });

  it("converges under GitHub's secondary rate limit: every refused call is retried, none fails", async () => {
    const n = await propose("drafts/apps/web/first");
    const { data: comment } = await rest("bob").issues.createComment({
      owner,
      repo,
      issue_number: n,
      body: "/approve",
    });
    const from = w.forge.requestLog.entries.length;
    w.forge.rateLimit.secondary({ everyNthMutation: 2, retryAfter: 1 });
    try {
      await w.settle();
    } finally {
      w.forge.rateLimit.secondary(null);
    }
    expect((await comments(n)).find((c) => c.includes(`reply comment=${comment.id}`))).toContain(
      "`apps/web/v1`",
    );
    const log = w.forge.requestLog.entries.slice(from);
    const refused = log.filter((e) => e.status === 403 || e.status === 429);
    expect(refused.length).toBeGreaterThan(1);
    for (const r of refused) {
      const retried = log.slice(log.indexOf(r) + 1).find((e) => e.method === r.method && e.path === r.path);
      expect(retried?.status, `${r.method} ${r.path} retried`).toBeLessThan(300);
    }
    expect(
      log.filter((e) => e.status >= 400 && e.status !== 403 && e.status !== 429 && e.status !== 404),
    ).toEqual([]);
  });

  it("a rollback (a new draft with an older revision's content) publishes as the next revision", async () => {
    await push("drafts/apps/web/second", { "apps/web/cm.yaml": webSettings("2") });
    const v2 = await propose("drafts/apps/web/second");
    expect(await say("bob", v2, "/approve")).toContain("`apps/web/v2`");

    // The rollback draft: the package as it was at apps/web/v1.
    const clone = await w.clone("alice");
    await clone.git("fetch", "--quiet", "origin", "--tags");
    await clone.git("checkout", "--quiet", "-B", "drafts/apps/web/rollback-v1", "origin/main");
    await clone.git("checkout", "apps/web/v1", "--", "apps/web");
    await clone.git("commit", "--quiet", "-m", "roll back apps/web to v1");
    await clone.git("push", "--quiet", "origin", "HEAD:refs/heads/drafts/apps/web/rollback-v1");
    await w.settle();
    const n = await propose("drafts/apps/web/rollback-v1");
    expect(await say("bob", n, "/approve")).toContain("`apps/web/v3`");
    const t = await tags();
    expect(Object.keys(t).sort()).toEqual(["apps/web/v1", "apps/web/v2", "apps/web/v3"]);
    expect(await packageFiles(t["apps/web/v3"]!)).toEqual(await packageFiles(t["apps/web/v1"]!));
    expect(await packageFiles(t["apps/web/v3"]!)).not.toEqual(await packageFiles(t["apps/web/v2"]!));
  });

  it("a publish that crashed after tagging still reaches the catalog and fans out, on the next sweep", async () => {
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission("acme/cluster-01", "alice", "write");
    await writeMain(".porchlight/variants/fleet.yaml", VARIANT);
    await w.settle();
    // The variant's push fans out at once: the newest revision published so far is proposed downstream.
    const [first, ...others] = (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data;
    expect(others).toEqual([]);
    expect(first?.head.ref).toMatch(/^porchlight\/variant\//);
    const proposedBefore = await text("web/cm.yaml", first!.head.ref, "cluster-01");
    expect(proposedBefore).not.toContain('v: "3"');
    await push("drafts/apps/web/third", { "apps/web/cm.yaml": webSettings("3") });
    const n = await propose("drafts/apps/web/third");

    // What the bot had done when it died: merged the reviewed head and tagged v4; nothing after (nor did
    // the merge's webhook reach a live bot, which would have finished the publish at once).
    const pr = (await rest().pulls.get({ owner, repo, pull_number: n })).data;
    w.forge.setWebhookUrl(null);
    const { data: merge } = await rest().pulls.merge({ owner, repo, pull_number: n, sha: pr.head.sha });
    await rest().git.createRef({ owner, repo, ref: "refs/tags/apps/web/v4", sha: merge.sha });
    w.forge.setWebhookUrl(w.app.webhookUrl);
    await w.settle();
    expect(await text("catalog.yaml", "porchlight/catalog")).not.toContain("v4");
    // nothing of v4 reached the downstream: its one pull request still proposes what it did
    const open = (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data;
    expect(open.map((p) => p.number)).toEqual([first!.number]);
    expect(await text("web/cm.yaml", first!.head.ref, "cluster-01")).toBe(proposedBefore);

    await sweep(w);
    expect(await text("catalog.yaml", "porchlight/catalog")).toContain(merge.sha);
    const [fanout, ...more] = (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data;
    expect(more).toEqual([]);
    expect(fanout?.head.ref).toMatch(/^porchlight\/variant\//);
    expect(await text("web/cm.yaml", fanout!.head.ref, "cluster-01")).toContain('v: "3"');
    // The publish is finished: its draft is gone, and v4 stays the only tag on the merge.
    await expect(branchHead(w, "drafts/apps/web/third")).rejects.toMatchObject({ status: 404 });
    expect(Object.keys(await tags())).toHaveLength(4);
  });

  it("/propose-delete said again after a failed run reuses the deletion branch it pushed", async () => {
    const published = (await rest().pulls.list({ owner, repo, state: "closed" })).data.find(
      (p) => p.head.ref === "drafts/apps/web/third",
    )!;
    w.forge.faults.add({ route: "/repos/{owner}/{repo}/pulls", method: "POST", status: 422, times: 1 });
    expect(await say("bob", published.number, "/propose-delete")).toContain("`/propose-delete` failed");
    expect(await branchHead(w, "drafts/apps/web/delete-v4")).toMatch(/^[0-9a-f]{40}$/);
    expect(await say("bob", published.number, "/propose-delete")).toContain("Proposed deleting **apps/web**");
    const open = (await rest().pulls.list({ owner, repo, state: "open" })).data;
    expect(open.map((p) => [p.head.ref, p.labels.map((l) => l.name)])).toEqual([
      ["drafts/apps/web/delete-v4", ["porchlight/deletion"]],
    ]);
    const branches = (await rest().git.listMatchingRefs({ owner, repo, ref: "heads/drafts/apps/web/" })).data;
    expect(branches.map((b) => b.ref)).toEqual(["refs/heads/drafts/apps/web/delete-v4"]);
  });

  it("a render whose push GitHub refused (500 on receive-pack) fails its check on the user's commit, and the next sweep finishes it", async () => {
    // The user's push reaches the forge while the app is not told (so the fault below hits the bot).
    w.forge.setWebhookUrl(null);
    const pushed = await (await w.clone("alice")).push("drafts/apps/web/refused", {
      "apps/web/cm.yaml": webSettings("9"),
    });
    w.forge.setWebhookUrl(w.app.webhookUrl);
    const fault = w.forge.faults.add({
      route: "/{owner}/{repo}.git/git-receive-pack",
      method: "POST",
      status: 500,
      times: 1,
    });
    await sweep(w);
    expect(fault.hits).toBe(1);
    expect(await branchHead(w, "drafts/apps/web/refused")).toBe(pushed);
    const [failed, ...others] = (await checkRuns(w, pushed)).filter((r) => r.name === "porchlight/render");
    expect(others).toEqual([]);
    expect(failed).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(failed!.output.title).toBe("Rendering apps/web did not finish");
    expect(failed!.output.summary).toMatch(/could not finish rendering [0-9a-f]{7}: git push failed/);
    expect(failed!.output.summary).toContain("tried again at the next sweep");

    await sweep(w);
    const rendered = await branchHead(w, "drafts/apps/web/refused");
    expect(rendered).not.toBe(pushed);
    const [retried] = (await checkRuns(w, pushed)).filter((r) => r.name === "porchlight/render");
    expect(retried).toMatchObject({ conclusion: "success", id: failed!.id });
    expect((await checkRuns(w, rendered)).find((r) => r.name === "porchlight/render")?.conclusion).toBe(
      "success",
    );
  });

  it("/approve whose reply GitHub refused (422) keeps the draft until the next sweep answers it, once", async () => {
    await push("drafts/apps/web/answer", { "apps/web/cm.yaml": webSettings("answer") });
    const n = await propose("drafts/apps/web/answer");
    // bob's comment reaches the forge while the app is not told, so the fault below hits only the bot.
    w.forge.setWebhookUrl(null);
    const { data: asked } = await rest("bob").issues.createComment({
      owner,
      repo,
      issue_number: n,
      body: "/approve",
    });
    await w.forge.webhooks.idle();
    const delivery = w.forge.webhooks
      .find("issue_comment", "created")
      .find((d) => (d.payload as { comment: { id: number } }).comment.id === asked.id)!;
    const refused = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
      method: "POST",
      status: 422,
      times: 100,
    });
    w.forge.setWebhookUrl(w.app.webhookUrl);
    w.forge.webhooks.redeliver(delivery.id);
    await w.settle();
    expect(refused.hits).toBeGreaterThan(0);
    const pr = (await rest().pulls.get({ owner, repo, pull_number: n })).data;
    expect(pr.merged).toBe(true);
    const tag = Object.entries(await tags()).find(([, sha]) => sha === pr.merge_commit_sha)?.[0];
    expect(tag).toMatch(/^apps\/web\/v\d+$/);
    // Published but not answered: the draft branch stays, the mark of an unfinished publish.
    expect((await comments(n)).filter((c) => c.includes(`reply comment=${asked.id}`))).toEqual([]);
    expect(await branchHead(w, "drafts/apps/web/answer")).toBe(pr.head.sha);

    w.forge.faults.remove(refused);
    await sweep(w);
    await sweep(w);
    const replies = (await comments(n)).filter((c) => c.includes(`reply comment=${asked.id}`));
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain(`\`${tag}\``);
    await expect(branchHead(w, "drafts/apps/web/answer")).rejects.toMatchObject({ status: 404 });
    expect(Object.entries(await tags()).filter(([, sha]) => sha === pr.merge_commit_sha)).toHaveLength(1);
  });
});
