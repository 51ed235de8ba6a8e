import { Octokit } from "@octokit/rest";
import { beforeAll, describe, expect, it } from "vitest";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { configMap, kptfile, onChannels, packageVariant } from "../util/krm.js";
import {
  botWrites,
  branchHead,
  branchHeads,
  checkRuns,
  dashboardOf,
  expectRedeliveryWritesNothing,
  publishDraft,
  sweep,
  useWorld,
} from "./harness.js";

const HELLO_KPTFILE = kptfile("hello", onChannels("stable"));
const cm = (v: string) => configMap("hello", { greeting: v });
const variant = (name: string, repo: string) => packageVariant({ name, upstream: "hello", repo });

/**
 * Issue 19: fan-out across installations of the same app. `acme/blueprints` (installation A, org acme)
 * manages three downstreams: `acme/cluster-01` in its own installation, `other/deploy-dev` in the app's
 * installation B on org `other`, and `stranger/deploy-x`, where the app is not installed.
 */
describe("fan-out across installations (forge over HTTP and git)", () => {
  let instA: number;
  let instB: number;
  let dana: Octokit;
  const fanoutPulls = async (gh: Octokit, owner: string, repo: string) =>
    (await gh.pulls.list({ owner, repo, state: "all" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const dashboard = () => dashboardOf(w);
  let ws = 0;
  let approval = 0;
  const publishUpstream = async (greeting: string) => {
    approval = await publishDraft(w, `drafts/hello/ws${++ws}`, { "hello/cm.yaml": cm(greeting) });
  };
  /** What the bot wrote: REST writes, and the heads of every branch of the downstreams. */
  const writes = () => botWrites(w);
  const heads = () =>
    branchHeads([
      [dana, "other/deploy-dev"],
      [w.users.alice!.rest, "acme/cluster-01"],
      [w.users.alice!.rest, "acme/blueprints"],
    ]);

  const w = useWorld({
    ".porchlight/variants/local.yaml": variant("local", "cluster-01"),
    ".porchlight/variants/dev.yaml": variant("dev", "other/deploy-dev"),
    ".porchlight/variants/x.yaml": variant("x", "stranger/deploy-x"),
    "hello/Kptfile": HELLO_KPTFILE,
    "hello/cm.yaml": cm("hi"),
  });
  beforeAll(async () => {
    const appId = w.forge.core.store.data.installations[0]!.appId;
    instA = w.forge.core.store.data.installations[0]!.id;
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission("acme/cluster-01", "alice", "write");
    w.forge.createUser("other", { type: "Organization" });
    await w.forge.createRepo("other/deploy-dev", { files: { "README.md": "# dev\n" }, private: true });
    instB = w.forge.createInstallation(appId, "other").id;
    const { pat } = w.forge.createUser("dana", { pat: true });
    w.forge.setPermission("other/deploy-dev", "dana", "write");
    dana = new Octokit({ baseUrl: w.forge.apiUrl, auth: pat });
    w.forge.createUser("stranger", { type: "Organization" });
    await w.forge.createRepo("stranger/deploy-x", { files: { "README.md": "# x\n" } });
    await w.settle();
  }, 120_000);

  it("a publish in installation A opens the fan-out proposal in installation B's repository, as B", async () => {
    await publishUpstream("v1");
    const [dev] = await fanoutPulls(dana, "other", "deploy-dev");
    expect(dev?.state).toBe("open");
    expect(dev?.head.ref).toBe("porchlight/variant/hello/dev");
    expect(parseVariantPullRequestBody(dev?.body ?? null)?.to).toBe("v1");
    const kptfile = (
      await dana.repos.getContent({
        owner: "other",
        repo: "deploy-dev",
        path: "hello/Kptfile",
        ref: dev!.head.ref,
        mediaType: { format: "raw" },
      })
    ).data as unknown as string;
    expect(kptfile).toContain("ref: hello/v1");
    expect(kptfile).toContain("acme/blueprints");
    // Installation B wrote to its repository; installation A never touched it.
    const created = w.forge.requestLog.filter({ method: "POST", route: "/repos/{owner}/{repo}/pulls" });
    expect(created.find((e) => e.path.includes("/other/deploy-dev/"))?.installationId).toBe(instB);
    const aOnB = w.forge.requestLog.entries.filter(
      (e) => e.installationId === instA && e.path.includes("/other/deploy-dev"),
    );
    expect(aOnB).toEqual([]);
    // The downstream of the same installation still gets its proposal.
    expect((await fanoutPulls(w.users.alice!.rest, "acme", "cluster-01")).map((p) => p.state)).toEqual([
      "open",
    ]);
  }, 120_000);

  it("a downstream where the app is not installed is named on the dashboard with what to do", async () => {
    const board = await dashboard();
    expect(board).toContain("the porchlight app is not installed on stranger/deploy-x");
    expect(board).toContain("an owner of stranger installs the app on stranger/deploy-x");
    expect(board).toContain("other/deploy-dev/hello");
    expect(w.forge.requestLog.entries.filter((e) => e.path.includes("/stranger/deploy-x/pulls"))).toEqual([]);
  }, 120_000);

  it("the same event again writes nothing; nor does the sweep after the first", async () => {
    const before = await heads();
    const board = await dashboard();
    await expectRedeliveryWritesNothing(w, approval);
    // `/fanout` runs the same reconcile now: it answers, and writes nothing in any downstream.
    const from = w.forge.requestLog.entries.length;
    expect(await w.say("bob", approval, "/fanout")).not.toBe("");
    const downstreamWrites = w.forge.requestLog.entries
      .slice(from)
      .filter((e) => e.method !== "GET" && /\/(other|acme\/cluster-01|stranger)\b/.test(e.path))
      .filter((e) => !e.route.endsWith("git-upload-pack") && !e.route.includes("access_tokens"));
    expect(downstreamWrites).toEqual([]);
    expect(await heads()).toEqual(before);
    expect(await dashboard()).toBe(board);
    expect((await fanoutPulls(dana, "other", "deploy-dev")).length).toBe(1);
  }, 120_000);

  it("a pull request adding variants is checked against the app's other installations", async () => {
    // The check reads every variant file of the head: x.yaml (stranger/deploy-x) is there already.
    await w.propose("variants-more", {
      ".porchlight/variants/prod.yaml": variant("prod", "other/deploy-prod"),
    });
    const [run] = (await checkRuns(w, await branchHead(w, "variants-more"))).filter(
      (r) => r.name === "porchlight/variants",
    );
    expect(run?.conclusion).toBe("failure");
    const summary = run?.output.summary ?? "";
    expect(summary).toContain("the porchlight app is not installed on stranger/deploy-x");
    // other/deploy-prod does not exist: installation B does not cover it, so GitHub answers 404 as well.
    expect(summary).toContain("the porchlight app is not installed on other/deploy-prod");
    expect(summary).not.toContain("deploy-dev");
  }, 120_000);

  it("the downstream maintainer publishes it in installation B, and the next upstream revision is proposed there", async () => {
    const [dev] = await fanoutPulls(dana, "other", "deploy-dev");
    await dana.issues.createComment({
      owner: "other",
      repo: "deploy-dev",
      issue_number: dev!.number,
      body: "/approve",
    });
    await w.settle();
    const tags = (await dana.repos.listTags({ owner: "other", repo: "deploy-dev" })).data.map((t) => t.name);
    expect(tags).toEqual(["hello/v1"]);
    await publishUpstream("v2");
    const open = (await fanoutPulls(dana, "other", "deploy-dev")).filter((p) => p.state === "open");
    expect(open.map((p) => parseVariantPullRequestBody(p.body)?.to)).toEqual(["v2"]);
    expect(open[0]!.title).toContain("v1");
    expect(await dashboard()).toMatch(/other\/deploy-dev\/hello[^\n]*v1/);
  }, 120_000);

  it("/update and reopening, on the proposal in installation B, reach the management repository in A", async () => {
    const [open] = (await fanoutPulls(dana, "other", "deploy-dev")).filter((p) => p.state === "open");
    expect(parseVariantPullRequestBody(open!.body)?.upstream?.repo).toBe("acme/blueprints");
    const { data: comment } = await dana.issues.createComment({
      owner: "other",
      repo: "deploy-dev",
      issue_number: open!.number,
      body: "/update v2",
    });
    await w.settle();
    const comments = (
      await dana.issues.listComments({ owner: "other", repo: "deploy-dev", issue_number: open!.number })
    ).data;
    const reply = comments.find((c) => c.body?.includes(`reply comment=${comment.id}`))?.body ?? "";
    expect(reply).toContain("upstream revision v2");
    const row = async () =>
      (await dashboard()).split("\n").find((l) => l.startsWith("| other/deploy-dev/hello")) ?? "";
    await dana.pulls.update({
      owner: "other",
      repo: "deploy-dev",
      pull_number: open!.number,
      state: "closed",
    });
    await w.settle();
    await sweep(w);
    expect(await row()).toContain(`skipped: #${open!.number} closed`);
    await dana.pulls.update({ owner: "other", repo: "deploy-dev", pull_number: open!.number, state: "open" });
    await w.settle();
    expect(await row()).not.toContain("skipped");
    expect(await row()).toContain(`#${open!.number}`);
  }, 120_000);

  it("removing the variant proposes deleting its downstream in installation B, as B; run again, nothing more", async () => {
    // The dashboard remembers where in other installations downstreams live: a variant file gone no
    // longer names other/deploy-dev, the marker does.
    expect(await dashboard()).toContain("<!-- porchlight:downstreams other/deploy-dev -->");
    const alice = await w.clone("alice");
    await alice.git("rm", "--quiet", ".porchlight/variants/dev.yaml");
    await alice.git("commit", "--quiet", "-m", "drop the dev variant");
    await alice.git("push", "--quiet", "origin", "HEAD:refs/heads/main");
    // the push that removes the variant fans out on its own event: no sweep needed
    await w.settle();
    const deletions = (
      await dana.pulls.list({ owner: "other", repo: "deploy-dev", state: "open" })
    ).data.filter((p) => p.labels.some((l) => l.name === "porchlight/deletion"));
    expect(deletions.map((p) => p.head.ref)).toEqual(["porchlight/variant/hello/dev"]);
    const created = w.forge.requestLog
      .filter({ method: "POST", route: "/repos/{owner}/{repo}/pulls" })
      .filter((e) => e.path.includes("/other/deploy-dev/"));
    expect(created.every((e) => e.installationId === instB)).toBe(true);
    expect(await dashboard()).toMatch(
      /\| other\/deploy-dev\/hello \| `dev` \|[^\n]*other\/deploy-dev#\d+ \|[^\n]*variant dev was removed and its deletionPolicy is delete/,
    );
    // The downstream still holds the package until the deletion is approved: the marker keeps it.
    expect(await dashboard()).toContain("<!-- porchlight:downstreams other/deploy-dev -->");
    // The sweep after it writes the dashboard's row as "proposes deleting"; the one after that, nothing.
    await sweep(w);
    const count = writes();
    const before = await heads();
    await sweep(w);
    expect(writes()).toBe(count);
    expect(await heads()).toEqual(before);
    expect(
      (await dana.pulls.list({ owner: "other", repo: "deploy-dev", state: "open" })).data.map(
        (p) => p.number,
      ),
    ).toEqual(deletions.map((p) => p.number));
  }, 120_000);
});
