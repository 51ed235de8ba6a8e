import { beforeAll, describe, expect, it } from "vitest";
import { channelHead, parseCatalog } from "../../src/catalog/index.js";
import { configMap, kptfile, packageVariant } from "../util/krm.js";
import { commentsOn, fileOf, publishDraft, tagsOf, useWorld } from "./harness.js";

const VARIANTS = [
  // follows channel stable (the channel every publish joins by default)
  packageVariant({ name: "dev", upstream: "hello", repo: "deploy-dev" }),
  // pins the revision that is about to be deleted
  packageVariant({ name: "pinned", upstream: "hello", revision: "v3", repo: "deploy-pinned" }),
].join("---\n");

/**
 * Issue 76, "a deletion is a catalog event": deleting the newest published revision (v3, the head of
 * stable) withdraws it from the catalog — stable moves back to v2 —, fan-out re-plans the variants that
 * followed it at once (the one on stable is moved to v2, the one pinning v3 has nothing to move to and its
 * pull request is closed saying why), and the next publish is v4: number 3 stays with the deleted commit.
 */
describe("deleting a channel's head: the catalog, its followers and the next number", () => {
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const variantPulls = async (repo: string, state: "open" | "closed" = "open") =>
    (await rest().pulls.list({ owner, repo, state })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const catalog = async () =>
    parseCatalog((await fileOf(w, "acme/blueprints", "catalog.yaml", "porchlight/catalog")).text);
  const publishes: number[] = [];
  const publish = async (v: string) => {
    await publishDraft(w, `drafts/hello/ws${v}`, { "hello/cm.yaml": configMap("settings", { v }) });
    const merged = (await rest().pulls.list({ owner, repo: "blueprints", state: "closed" })).data;
    publishes.push(merged.find((p) => p.head.ref === `drafts/hello/ws${v}`)!.number);
  };

  const w = useWorld({
    ".porchlight/variants/hello.yaml": VARIANTS,
    "hello/Kptfile": kptfile("hello"),
    "hello/cm.yaml": configMap("settings", { v: "0" }),
  });
  beforeAll(async () => {
    for (const repo of ["deploy-dev", "deploy-pinned"]) {
      await w.forge.createRepo(`acme/${repo}`, { files: { "README.md": `# ${repo}\n` } });
      w.forge.setPermission(`acme/${repo}`, "alice", "write");
    }
    await w.settle();
    for (const v of ["1", "2", "3"]) await publish(v);
  }, 120_000);

  it("before: v3 heads stable and both downstreams are proposed v3", async () => {
    expect(channelHead((await catalog()).catalog, "hello", "stable")).toBe("v3");
    expect((await variantPulls("deploy-dev")).map((p) => p.title)).toEqual([
      "Clone blueprints/hello v3 into hello",
    ]);
    expect((await variantPulls("deploy-pinned")).map((p) => p.title)).toEqual([
      "Clone blueprints/hello v3 into hello",
    ]);
  });

  it("deleting v3 moves stable back to v2, moves its follower's proposal to v2 and closes the pinned one", async () => {
    const v3 = publishes[2]!;
    expect(await w.say("bob", v3, "/propose-delete v3")).toMatch(
      /Proposed deleting revision \*\*hello\/v3\*\*/,
    );
    const open = (await rest().pulls.list({ owner, repo: "blueprints", state: "open" })).data;
    const deletion = open.find((p) => p.labels.some((l) => l.name === "porchlight/deletion"))!;
    await w.users.bob!.rest.pulls.createReview({
      owner,
      repo: "blueprints",
      pull_number: deletion.number,
      event: "APPROVE",
    });
    await w.settle();
    expect(Object.keys(await tagsOf(w, "hello/"))).toEqual(["hello/v1", "hello/v2"]);

    // the catalog: v3 is out of every channel and record, stable is headed by v2 again
    const { catalog: after, document } = await catalog();
    const pkg = after.packages.find((p) => p.name === "hello")!;
    expect(channelHead(after, "hello", "stable")).toBe("v2");
    expect(pkg.revisions.map((r) => r.revision)).toEqual(["v1", "v2"]);
    expect(pkg.channels.flatMap((c) => c.entries.map((e) => e.name))).not.toContain("v3");
    expect(pkg.removed).toEqual(["v3"]);
    expect(document.toString()).not.toMatch(/name: v3|revision: v3/);

    // the follower of stable: its same pull request now proposes v2
    const [dev] = await variantPulls("deploy-dev");
    expect(dev!.title).toBe("Clone blueprints/hello v2 into hello");
    expect((await fileOf(w, "acme/deploy-dev", "hello/cm.yaml", dev!.head.ref)).text).toContain('v: "2"');
    // the one pinning v3 has nothing to move to: closed, saying why
    expect(await variantPulls("deploy-pinned")).toEqual([]);
    const [closed] = await variantPulls("deploy-pinned", "closed");
    expect((await commentsOn(w, closed!.number, "acme/deploy-pinned")).join("\n")).toContain(
      `hello v3, which #${closed!.number} proposes, is no longer published in blueprints (deleted), and there is no revision to move it to: revision v3 of hello is not published (published: v1, v2)`,
    );
  });

  it("the next publish is v4, never v3 again, heads stable and reaches the follower", async () => {
    await publish("4");
    expect(Object.keys(await tagsOf(w, "hello/"))).toEqual(["hello/v1", "hello/v2", "hello/v4"]);
    const { catalog: after } = await catalog();
    expect(channelHead(after, "hello", "stable")).toBe("v4");
    expect(after.packages[0]!.removed).toEqual(["v3"]);
    expect((await variantPulls("deploy-dev")).map((p) => p.title)).toEqual([
      "Clone blueprints/hello v4 into hello",
    ]);
    // the pinned variant stays as it was: its revision is gone, its pull request closed once
    expect(await variantPulls("deploy-pinned")).toEqual([]);
  });
});
