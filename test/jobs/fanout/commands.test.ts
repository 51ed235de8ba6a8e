import { describe, expect, it } from "vitest";
import { channelHead, parseCatalog } from "../../../src/catalog/index.js";
import { readCatalog } from "../../../src/jobs/catalog/read.js";
import { recordPublished } from "../../../src/jobs/catalog/record-publish.js";
import { removeFromCatalog, skipRevision } from "../../../src/jobs/catalog/withdraw.js";
import { runCommands } from "../../../src/jobs/commands/index.js";
import { reconcileFanout } from "../../../src/jobs/fanout/index.js";
import { sweepFanout } from "../../../src/jobs/fanout/jobs.js";
import { formatVariantPullRequest, parseVariantPullRequestBody } from "../../../src/variants/index.js";
import { kptfile, packageVariant } from "../../util/krm.js";
import type { FakeRepo } from "../fake-repo.js";
import { jobContext } from "../helpers.js";
import { BOT, FakeInstallation, fanoutContext, publish, WRITES } from "./fake-installation.js";

const KPTFILE = kptfile("basens");
const VARIANT = packageVariant({ name: "basens-01", upstream: "basens", revision: "v3", repo: "cluster-01" });

function world() {
  const inst = new FakeInstallation();
  const up = inst.add("blueprints", { ".porchlight/variants/v.yaml": VARIANT });
  for (const n of [1, 2, 3]) publish(up, "basens", n, { Kptfile: KPTFILE, "a.yaml": `a: ${n}\n` });
  const c1 = inst.add("cluster-01");
  return { inst, up, c1 };
}

/** Records basens's revision `n` (its tag's commit unless given) in the catalog, stable its default channel. */
function recordBasens(up: FakeRepo, n: number, commit = up.resolve(`refs/tags/basens/v${n}`)) {
  return recordPublished(up, {
    package: "basens",
    revision: n,
    commit,
    defaultChannel: "stable",
    author: BOT.author,
    now: new Date(0),
  });
}

async function say(repo: FakeRepo, inst: FakeInstallation, issue: number, body: string) {
  repo.permissions.set("bob", "write");
  const ctx = { ...jobContext(repo), installation: inst };
  const c = repo.addComment(issue, body);
  await runCommands(ctx, { issue, commentId: c.id, body, author: "bob" });
  return repo.comments.find((x) => x.body.includes(`reply comment=${c.id}`))?.body ?? "";
}

describe("fan-out and catalog commands", () => {
  it("/fanout answers with what it did: opened, updated, left as they were, failed", async () => {
    const { inst, up, c1 } = world();
    up.commit("drafts/basens/x", { "basens/a.yaml": "a: 4\n" });
    const issue = up.openPull("drafts/basens/x").number;
    expect(await say(up, inst, issue, "/fanout")).toContain(
      "Fan-out: opened 1 pull request, updated 0, left 0 variants as they were, 0 failed.",
    );
    expect(c1.pulls.size).toBe(1);
    // Nothing new: nothing opened, the variant left as it was (it never claims to open one again).
    expect(await say(up, inst, issue, "/fanout")).toContain(
      "Fan-out: opened 0 pull requests, updated 0, left 1 variant as it was, 0 failed.",
    );
    expect(c1.pulls.size).toBe(1);
    // Where the downstream refuses the pull request, the answer says it failed, and opened none.
    const other = world();
    other.up.commit("drafts/basens/x", { "basens/a.yaml": "a: 4\n" });
    other.c1.createPull = async () => {
      throw new Error("GitHub is down");
    };
    const reply = await say(other.up, other.inst, other.up.openPull("drafts/basens/x").number, "/fanout");
    expect(reply).toContain(
      "Fan-out: opened 0 pull requests, updated 0, left 0 variants as they were, 1 failed.",
    );
    expect(reply).toContain("`basens-01`: ");
    expect(reply).toContain("GitHub is down");
    expect(other.c1.pulls.size).toBe(0);
  });

  it("/fanout counts the variants it left for a problem, and names them, where it said 0 failed", async () => {
    const inst = new FakeInstallation();
    const broken = VARIANT.replace("revision: v3", "revision: v9")
      .replace("basens-01", "basens-02")
      .replace("cluster-01", "cluster-02");
    const badField = VARIANT.replace("basens-01", "basens-03").replace("downstream:", "downstreem:");
    const up = inst.add("blueprints", {
      ".porchlight/variants/v.yaml": VARIANT,
      ".porchlight/variants/w.yaml": broken,
      ".porchlight/variants/x.yaml": badField,
    });
    for (const n of [1, 2, 3]) publish(up, "basens", n, { Kptfile: KPTFILE, "a.yaml": `a: ${n}\n` });
    inst.add("cluster-01");
    inst.add("cluster-02");
    up.commit("drafts/basens/x", { "basens/a.yaml": "a: 4\n" });
    const reply = await say(up, inst, up.openPull("drafts/basens/x").number, "/fanout");
    expect(reply).toContain(
      "Fan-out: opened 1 pull request, updated 0, left 0 variants as they were, 0 failed, 2 variants have problems.",
    );
    expect(reply).toContain("`basens-02`: revision v9 of basens is not published (published: v1, v2, v3)");
    expect(reply).toContain("`basens-03`: .porchlight/variants/x.yaml:");
    expect(reply).toContain("The dashboard issue lists them all.");
  });

  it("/update v2 retargets a fan-out pull request, and the retarget holds on the next runs", async () => {
    const { inst, c1 } = world();
    await reconcileFanout(fanoutContext(inst), "blueprints");
    const pr = [...c1.pulls.values()][0]!;
    expect(parseVariantPullRequestBody(pr.body)?.to).toBe("v3");

    expect(await say(c1, inst, pr.number, "/update v2")).toContain(
      "Updated **basens** to upstream revision v2",
    );
    expect(parseVariantPullRequestBody(c1.pulls.get(pr.number)!.body)?.to).toBe("v2");
    expect(c1.files(pr.headRef, "basens")["a.yaml"]).toBe("a: 2\n# rendered\n");

    inst.clearCalls();
    await reconcileFanout(fanoutContext(inst), "blueprints");
    expect(inst.calls().filter((c) => WRITES.includes(c.split(":")[1]!))).toEqual([]);
    expect(await say(c1, inst, pr.number, "/update v9")).toContain("no published revision v9");
  });

  it("/update never offers a revision the catalog skips or removed", async () => {
    const { inst, up, c1 } = world();
    for (const n of [1, 2, 3]) await recordBasens(up, n);
    await reconcileFanout(fanoutContext(inst), "blueprints");
    const pr = [...c1.pulls.values()][0]!;
    await skipRevision(up, { package: "basens", revision: "v2", author: BOT.author });
    expect(await say(c1, inst, pr.number, "/update v2")).toContain("v2 is skipped in the catalog");
    expect(await say(c1, inst, pr.number, "/update v1")).toContain("upstream revision v1");
    expect(await say(c1, inst, pr.number, "/update")).toContain("upstream revision v3");
    await removeFromCatalog(up, { package: "basens", revision: "v1", author: BOT.author });
    expect(await say(c1, inst, pr.number, "/update v1")).toContain("v1 is removed from the catalog");
  });

  it("/update on a pull request that is no fan-out one is refused with why", async () => {
    const { inst, up } = world();
    up.branch("drafts/basens/x", "main");
    const pr = up.openPull("drafts/basens/x");
    expect(await say(up, inst, pr.number, "/update")).toContain("retargets a fan-out update pull request");
  });

  it("/update on a fan-out pull request following an OCI image says how to move it instead", async () => {
    const { inst, c1 } = world();
    const digest = `sha256:${"b".repeat(64)}`;
    const source = "oci://registry.example/pkgs/web:stable";
    c1.branch("porchlight/variant/web/web-01", "main");
    const { body } = formatVariantPullRequest({
      kind: "clone",
      variant: "web-01",
      downstream: { repo: "cluster-01", package: "web" },
      to: digest,
      toCommit: digest,
      source: { source, digest },
    });
    const pr = c1.openPull("porchlight/variant/web/web-01", { body });
    const reply = await say(c1, inst, pr.number, "/update v2");
    expect(reply).toContain(`follows the OCI image \`${source}\``);
    expect(reply).toContain("Move its tag");
  });

  it("/promote adds the published revision of a merged proposal to a channel, and refuses an unknown channel", async () => {
    const { inst, up } = world();
    for (const n of [1, 2, 3]) await recordBasens(up, n);
    up.branch("drafts/basens/ws", "main");
    up.commit("drafts/basens/ws", { "basens/a.yaml": "a: 4\n" });
    const pr = up.openPull("drafts/basens/ws");
    const merge = await up.mergePull(pr.number, { sha: up.resolve("drafts/basens/ws"), method: "merge" });
    up.refs.set("refs/tags/basens/v4", merge);
    await recordBasens(up, 4, merge);

    expect(await say(up, inst, pr.number, "/promote beta")).toContain(
      "Added **basens** v4 to the `beta` channel",
    );
    const text = (await readCatalog(up)).text;
    expect(text).toMatch(/name: beta\n\s+entries:\n\s+- name: v4/);
    expect(await say(up, inst, pr.number, "/promote gold")).toContain(
      "`gold` is not a channel of this repository",
    );
  });

  it("/promote with no channel promotes into the package's default channel", async () => {
    const { inst, up } = world();
    for (const n of [1, 2, 3]) await recordBasens(up, n);
    up.branch("drafts/basens/ws", "main");
    // v4 is published into beta only (its Kptfile says so); the package's default channel is stable.
    up.commit("drafts/basens/ws", {
      "basens/a.yaml": "a: 4\n",
      "basens/Kptfile":
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n  annotations:\n    porchlight.dev/channels: beta\n",
    });
    const pr = up.openPull("drafts/basens/ws");
    const merge = await up.mergePull(pr.number, { sha: up.resolve("drafts/basens/ws"), method: "merge" });
    up.refs.set("refs/tags/basens/v4", merge);
    await recordBasens(up, 4, merge);
    const catalog = async () => parseCatalog((await readCatalog(up)).text).catalog;
    expect(channelHead(await catalog(), "basens", "stable")).toBe("v3");

    expect(await say(up, inst, pr.number, "/promote")).toContain(
      "Added **basens** v4 to the `stable` channel",
    );
    expect((await catalog()).packages[0]?.defaultChannel).toBe("stable");
    expect(channelHead(await catalog(), "basens", "stable")).toBe("v4");
  });
});

describe("fan-out sweep", () => {
  it("records tags the catalog missed and reconciles a repository with variant files; skips one without", async () => {
    const { inst, up, c1 } = world();
    const out = await sweepFanout({ ...jobContext(up), installation: inst }, inst);
    expect(out.recorded).toEqual(["basens/v1", "basens/v2", "basens/v3"]);
    expect(out.fanout?.pullRequests).toHaveLength(1);
    expect([...c1.pulls.values()]).toHaveLength(1);
    expect(await sweepFanout({ ...jobContext(c1), installation: inst }, inst)).toEqual({
      recorded: [],
      withdrawn: [],
    });
  });
});
