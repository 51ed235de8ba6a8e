import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/index.js";
import { commentsOn, fileOf, startWorld, sweep, type World } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n";
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: "${v}"\n`;

describe("catalog commands end to end (forge over HTTP and git)", () => {
  let w: World;
  const [owner, repo] = ["acme", "blueprints"];
  const rest = (user = "alice") => w.users[user]!.rest;
  const comments = (n: number) => commentsOn(w, n);
  const say = async (user: string, n: number, body: string) => {
    const { data } = await rest(user).issues.createComment({ owner, repo, issue_number: n, body });
    await w.settle();
    const reply = (await comments(n)).find((c) => c.includes(`reply comment=${data.id}`));
    return { id: data.id, reply: reply ?? "" };
  };
  /** Delivers the webhook of comment `id` again, as GitHub does when asked to; settles. */
  const redeliver = async (id: number) => {
    const delivery = w.forge.webhooks
      .find("issue_comment", "created")
      .find((d) => (d.payload as { comment: { id: number } }).comment.id === id)!;
    w.forge.webhooks.redeliver(delivery.id);
    await w.settle();
  };
  const head = async (branch: string) =>
    (await rest().git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;
  const file = async (path: string, ref: string) => (await fileOf(w, `${owner}/${repo}`, path, ref)).text;
  const catalog = async () =>
    parseCatalog(await file("catalog.yaml", "porchlight/catalog")).catalog.packages[0]!;
  const stable = async () => (await catalog()).channels.find((c) => c.name === "stable")!;
  /** Publishes a draft with `level` as basens/v<N>: alice proposes, bob approves. Returns the proposal. */
  const publish = async (workspace: string, level: string) => {
    const { number } = await w.propose(`drafts/basens/${workspace}`, { "basens/cm.yaml": cm(level) });
    expect((await say("bob", number, "/approve")).reply).toContain("Published **basens**");
    return number;
  };
  const pr: Record<string, number> = {};

  beforeAll(async () => {
    w = await startWorld({ "basens/Kptfile": KPTFILE, "basens/cm.yaml": cm("0") });
    pr.v1 = await publish("one", "1");
    pr.v2 = await publish("two", "2");
    pr.v3 = await publish("three", "3");
  }, 120_000);
  afterAll(() => w?.stop());

  it("/skip on the proposal that published v2 skips it; said again, or delivered again, it writes nothing", async () => {
    const { id, reply } = await say("alice", pr.v2!, "/skip");
    expect(reply).toContain("Skipped **basens** v2 in the catalog");
    expect((await stable()).entries.find((e) => e.name === "v3")).toMatchObject({
      replaces: "v1",
      skips: ["v2"],
    });
    const after = await head("porchlight/catalog");
    await redeliver(id);
    expect((await comments(pr.v2!)).filter((c) => c.includes(`reply comment=${id}`))).toHaveLength(1);
    expect((await say("alice", pr.v2!, "/skip v2")).reply).toContain(
      "**basens** v2 is skipped in the catalog already; nothing changed.",
    );
    expect(await head("porchlight/catalog")).toBe(after);
  });

  it("/remove needs maintain, refuses a channel head naming the path it would break, and removes in an issue by tag", async () => {
    const { data: issue } = await rest().issues.create({ owner, repo, title: "basens v1 is unsafe" });
    expect((await say("bob", issue.number, "/remove basens/v1")).reply).toBe(
      `<!-- porchlight:reply comment=${(await rest().issues.listComments({ owner, repo, issue_number: issue.number })).data[0]!.id} -->\n@bob, \`/remove\` needs maintain permission on this repository; you have write permission.\n`,
    );
    w.forge.setPermission("acme/blueprints", "alice", "maintain");
    const before = await head("porchlight/catalog");
    const head3 = await say("alice", issue.number, "/remove basens/v3");
    expect(head3.reply).toContain(
      "Not changed: basens v3 is the head of channel stable: removing it would break the upgrade path v1 -> v3",
    );
    expect(head3.reply).toContain("`/rollback`");
    expect(await head("porchlight/catalog")).toBe(before);

    const { id, reply } = await say("alice", issue.number, "/remove basens/v1");
    expect(reply).toContain("Removed **basens** v1 from the catalog");
    const pkg = await catalog();
    expect(pkg.revisions.map((r) => r.revision)).toEqual(["v2", "v3"]);
    expect(pkg.removed).toEqual(["v1"]);
    expect(pkg.channels[0]!.entries.find((e) => e.name === "v3")).toEqual({
      name: "v3",
      skips: ["v2", "v1"],
    });
    const after = await head("porchlight/catalog");
    await redeliver(id);
    await sweep(w);
    // Its tag stays; neither the redelivery nor the sweep's catch-up records it again.
    expect((await rest().git.getRef({ owner, repo, ref: "tags/basens/v1" })).status).toBe(200);
    expect(await head("porchlight/catalog")).toBe(after);
    expect((await comments(issue.number)).filter((c) => c.includes(`reply comment=${id}`))).toHaveLength(1);
  });

  it("/deprecate records an olm.deprecations entry with the message, once, and refuses a channel that is not there", async () => {
    const { id, reply } = await say("alice", pr.v3!, "/deprecate v3 sets level 3, which breaks cluster-02");
    expect(reply).toContain(
      "Deprecated **basens** v3 in the catalog: “sets level 3, which breaks cluster-02”",
    );
    expect((await catalog()).deprecations).toEqual([
      { reference: { schema: "olm.bundle", name: "v3" }, message: "sets level 3, which breaks cluster-02" },
    ]);
    const after = await head("porchlight/catalog");
    await redeliver(id);
    expect((await comments(pr.v3!)).filter((c) => c.includes(`reply comment=${id}`))).toHaveLength(1);
    expect(
      (await say("alice", pr.v3!, "/deprecate v3 sets level 3, which breaks cluster-02")).reply,
    ).toContain("already");
    expect((await say("alice", pr.v3!, "/deprecate channel lts nobody follows it")).reply).toContain(
      "Not changed: basens has no channel lts (channels: stable)",
    );
    expect(await head("porchlight/catalog")).toBe(after);
  });

  it("/rollback proposes v2's content as a new draft; approved, it is published as v4 and heads the channel", async () => {
    const { id, reply } = await say("alice", pr.v3!, "/rollback");
    const match = /in #(\d+) \(draft `drafts\/basens\/rollback-v2`\)/.exec(reply);
    expect(reply, reply).toContain("Proposed rolling **basens** back to the content of v2");
    const n = Number(match![1]);
    expect(await file("basens/cm.yaml", "drafts/basens/rollback-v2")).toBe(cm("2"));
    await redeliver(id);
    expect((await say("alice", pr.v3!, "/rollback v2")).reply).toContain(
      `Already proposed rolling **basens** back to the content of v2 in #${n}`,
    );
    const open = (await rest().pulls.list({ owner, repo, state: "open" })).data;
    expect(open.filter((p) => p.head.ref.startsWith("drafts/basens/rollback"))).toHaveLength(1);

    expect((await say("bob", n, "/approve")).reply).toContain("`basens/v4`");
    expect(await file("basens/cm.yaml", "basens/v4")).toBe(cm("2"));
    const channel = await stable();
    expect(channel.entries.find((e) => e.name === "v4")).toEqual({ name: "v4", replaces: "v3" });
    expect((await say("alice", pr.v3!, "/rollback v2")).reply).toContain(
      "Not rolled back: `main` already holds the content of basens v2 (v4 has it); there is nothing to roll back.",
    );
    expect((await say("alice", pr.v3!, "/rollback v4")).reply).toContain(
      "v4 is basens's latest revision already",
    );
  });

  it("refuses a catalog command that names no revision where none is implied", async () => {
    const { data: issue } = await rest().issues.create({ owner, repo, title: "questions" });
    expect((await say("alice", issue.number, "/skip")).reply).toContain(
      "Outside a proposal of a package of this repository (in an issue, or on a fork's pull request), name the revision by its tag, like `/skip basens/v2`.",
    );
    expect((await say("rita", issue.number, "/skip basens/v2")).reply).toContain(
      "@rita, `/skip` needs write permission on this repository; you have read permission.",
    );
  });
});
