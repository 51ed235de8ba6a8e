import { describe, expect, it } from "vitest";
import { botWrites, commentsOn, tagsOf, useWorld } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

/**
 * A proposal merged with GitHub's merge button (here: the REST merge, by a person) is published at
 * once — the revision tag on the merge commit, the draft branch deleted, one comment saying so — not at
 * the next sweep. The same `pull_request.closed` delivered again writes nothing; a merge the bot must
 * not publish (conflict markers merged past the failing check) is said once on the pull request; a
 * merged branch that is no draft is left alone.
 */
describe("a proposal merged on GitHub by hand (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;
  const comments = (n: number) => commentsOn(w, n);
  const tags = () => tagsOf(w);
  const branches = async () => (await rest().repos.listBranches({ owner, repo })).data.map((b) => b.name);
  const writes = () => botWrites(w);
  const open = async (branch: string, files: Record<string, string>) => {
    await (await w.clone("alice")).push(branch, files);
    await w.settle();
    const { data } = await rest().pulls.create({ owner, repo, head: branch, base: "main", title: branch });
    await w.settle();
    return data;
  };
  const merge = async (pr: { number: number; head: { sha: string } }) => {
    const { data } = await rest().pulls.merge({ owner, repo, pull_number: pr.number, sha: pr.head.sha });
    await w.settle();
    return data.sha;
  };
  const closedDelivery = (n: number) =>
    w.forge.webhooks
      .find("pull_request", "closed")
      .filter((d) => (d.payload.pull_request as { number: number }).number === n)
      .at(-1);

  const w = useWorld({ "apps/web/Kptfile": KPTFILE });

  it("is tagged, its draft branch deleted and the publish said once, without a sweep", async () => {
    const pr = await open("drafts/apps/web/by-hand", { "apps/web/cm.yaml": cm("one") });
    const sha = await merge(pr);
    expect(await tags()).toEqual({ "apps/web/v1": sha });
    expect(await branches()).not.toContain("drafts/apps/web/by-hand");
    const said = (await comments(pr.number)).filter((c) => c.includes("porchlight:publish merged"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("Merged on GitHub: Published **apps/web** as `apps/web/v1`");
  });

  it("the same delivery again writes nothing", async () => {
    const pulls = (await rest().pulls.list({ owner, repo, state: "closed" })).data;
    const pr = pulls.find((p) => p.head.ref === "drafts/apps/web/by-hand")!;
    const before = writes();
    w.forge.webhooks.redeliver(closedDelivery(pr.number)!.id);
    await w.settle();
    expect(writes()).toBe(before);
    expect(Object.keys(await tags())).toEqual(["apps/web/v1"]);
  });

  it("conflict markers merged past the failing check: no tag, and the reason said once", async () => {
    const markers = `${cm("two")}<<<<<<< local\n  a: 1\n=======\n  a: 2\n>>>>>>> upstream\n`;
    const pr = await open("drafts/apps/web/markers", { "apps/web/cm2.yaml": markers });
    await merge(pr);
    expect(Object.keys(await tags())).toEqual(["apps/web/v1"]);
    w.forge.webhooks.redeliver(closedDelivery(pr.number)!.id);
    await w.settle();
    const said = (await comments(pr.number)).filter((c) => c.includes("porchlight:publish merged"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /Not published: #\d+ was merged with unresolved conflict markers \(`apps\/web\/cm2.yaml` line \d+/,
    );
  });

  it("a merged branch that is no draft publishes nothing", async () => {
    const pr = await open("docs-typo", { "README.md": "# blueprints, fixed\n" });
    const before = writes();
    await merge(pr);
    expect(writes()).toBe(before);
    expect(Object.keys(await tags())).toEqual(["apps/web/v1"]);
    expect(await comments(pr.number)).toEqual([]);
  });
  it("a merge someone else tagged and cleaned up first is still announced by its own event: the catalog records it", async () => {
    const pr = await open("drafts/apps/web/cli", { "apps/web/cm.yaml": cm("three") });
    // the app hears nothing while another hand (as `rpkg approve` does) merges, tags and deletes the draft
    w.forge.setWebhookUrl(null);
    const sha = await merge(pr);
    await rest().git.createRef({ owner, repo, ref: "refs/tags/apps/web/v2", sha });
    await rest()
      .git.deleteRef({ owner, repo, ref: "heads/drafts/apps/web/cli" })
      .catch(() => undefined);
    w.forge.setWebhookUrl(w.app.webhookUrl);
    w.forge.webhooks.redeliver(closedDelivery(pr.number)!.id);
    await w.settle();
    const { data } = await rest().repos.getContent({
      owner,
      repo,
      path: "catalog.yaml",
      ref: "porchlight/catalog",
    });
    const text = Buffer.from((data as { content: string }).content, "base64").toString("utf8");
    expect(text).toMatch(new RegExp(`- revision: v2\\n\\s+commit: ${sha}\\n`));
  });
});
