import { beforeAll, describe, expect, it } from "vitest";
import { kptfile, packageVariant, settings } from "../util/krm.js";
import { fileOf, publishDraft, sweep, useWorld } from "./harness.js";

/**
 * A person pushes to a fan-out pull request: fan-out stops updating it and says so (label and a line in
 * the body), keeps it at its revision when a newer one is published, and `/update` hands it back.
 */
const cm = settings;
const VARIANT = packageVariant({ name: "c1", upstream: "basens", repo: "cluster-01" });
const BRANCH = "porchlight/variant/basens/c1";

describe("a fan-out pull request someone else pushed to", () => {
  const owner = "acme";
  const repo = "cluster-01";
  const rest = () => w.users.alice!.rest;
  const pull = async () => {
    const open = (await rest().pulls.list({ owner, repo, state: "open" })).data;
    expect(open).toHaveLength(1);
    return open[0]!;
  };
  const labels = (p: { labels: ({ name?: string } | string)[] }) =>
    p.labels.map((l) => (typeof l === "string" ? l : l.name));
  const fileOnBranch = async () => (await fileOf(w, `${owner}/${repo}`, "basens/cm.yaml", BRANCH)).text;
  let ws = 0;
  const publish = (v: string) => publishDraft(w, `drafts/basens/ws${++ws}`, { "basens/cm.yaml": cm(v) });

  const w = useWorld({
    ".porchlight/variants/c1.yaml": VARIANT,
    "basens/Kptfile": kptfile("basens"),
    "basens/cm.yaml": cm("0"),
  });
  beforeAll(async () => {
    await w.forge.createRepo(`acme/${repo}`, { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission(`acme/${repo}`, "alice", "write");
    await w.settle();
  }, 60_000);

  it("is labelled and says so in its body, and stays at its revision when a newer one is published", async () => {
    await publish("1");
    const opened = await pull();
    const clone = await w.clone("alice", `acme/${repo}`);
    await clone.push(BRANCH, { "basens/cm.yaml": cm("mine") }, `origin/${BRANCH}`);
    await w.settle();
    await sweep(w);
    const held = await pull();
    expect(held.number).toBe(opened.number);
    expect(labels(held)).toContain("porchlight/edited");
    expect(held.body).toContain("✋ **Fan-out no longer updates this pull request**");

    await publish("2");
    const still = await pull();
    expect(still.title).toBe(opened.title);
    expect(await fileOnBranch()).toBe(cm("mine"));
    // The same sweep again: the label and the line are there once.
    await sweep(w);
    expect((await pull()).body?.match(/Fan-out no longer updates/g)).toHaveLength(1);
  }, 90_000);

  it("/update hands it back: updated to the newest revision, label and line gone, and not held again", async () => {
    const held = await pull();
    const { data: comment } = await rest().issues.createComment({
      owner,
      repo,
      issue_number: held.number,
      body: "/update",
    });
    await w.settle();
    const replies = (await rest().issues.listComments({ owner, repo, issue_number: held.number })).data;
    expect(replies.find((c) => c.body?.includes(`reply comment=${comment.id}`))?.body).toContain(
      "upstream revision v2",
    );
    const back = await pull();
    expect(back.title).toContain("v2");
    expect(labels(back)).not.toContain("porchlight/edited");
    expect(back.body).not.toContain("Fan-out no longer updates");
    expect(await fileOnBranch()).toContain('v: "2"');
    await sweep(w);
    expect(labels(await pull())).not.toContain("porchlight/edited");
  }, 90_000);
});
