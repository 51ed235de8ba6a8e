import { describe, expect, it } from "vitest";
import type { DeprecationReference } from "../../../src/catalog/index.js";
import { promoteRevision } from "../../../src/jobs/catalog/promote.js";
import { recordPublished } from "../../../src/jobs/catalog/record-publish.js";
import { deprecateInCatalog, skipRevision } from "../../../src/jobs/catalog/withdraw.js";
import { reconcileFanout } from "../../../src/jobs/fanout/index.js";
import { parseVariantPullRequestBody } from "../../../src/variants/index.js";
import { kptfile, packageVariant } from "../../util/krm.js";
import { BOT, FakeInstallation, fanoutContext, publish } from "./fake-installation.js";

const KPTFILE = kptfile("basens");
const VARIANT = packageVariant({ name: "basens-01", upstream: "basens", repo: "cluster-01" });

/** A variant following stable, whose downstream has merged the clone of v1 (recorded in stable). */
async function deployedV1() {
  const inst = new FakeInstallation();
  const up = inst.add("blueprints", { ".porchlight/variants/v.yaml": VARIANT });
  const c1 = inst.add("cluster-01");
  const ctx = fanoutContext(inst);
  const rec = (n: number, sha: string) =>
    recordPublished(up, {
      package: "basens",
      revision: n,
      commit: sha,
      defaultChannel: "stable",
      author: BOT.author,
      now: new Date(0),
    });
  await rec(1, publish(up, "basens", 1, { Kptfile: KPTFILE, "a.yaml": "a: 1\n" }));
  await reconcileFanout(ctx, "blueprints");
  const clone = [...c1.pulls.values()][0]!;
  await c1.mergePull(clone.number, { sha: c1.resolve(clone.headRef), method: "merge" });
  return { up, c1, ctx, rec };
}

describe("fan-out following a catalog channel", () => {
  it("targets the channel head: a beta-only revision is not offered until promoted to stable", async () => {
    const inst = new FakeInstallation();
    const up = inst.add("blueprints", { ".porchlight/variants/v.yaml": VARIANT });
    const c1 = inst.add("cluster-01");
    const ctx = fanoutContext(inst);
    const now = new Date("2024-05-01T10:00:00Z");
    const rec = (n: number, sha: string, channel: string) =>
      recordPublished(up, {
        package: "basens",
        revision: n,
        commit: sha,
        defaultChannel: channel,
        author: BOT.author,
        now,
      });

    const unpublished = await reconcileFanout(ctx, "blueprints");
    expect(unpublished.actions[0]).toMatchObject({
      kind: "skip",
      reason: expect.stringContaining("no published package"),
    });

    await rec(1, publish(up, "basens", 1, { Kptfile: KPTFILE, "a.yaml": "a: 1\n" }), "stable");
    await rec(2, publish(up, "basens", 2, { "a.yaml": "a: 2\n" }), "beta");
    await reconcileFanout(ctx, "blueprints");
    const pr = [...c1.pulls.values()][0]!;
    expect(parseVariantPullRequestBody(pr.body)).toMatchObject({ kind: "clone", to: "v1" });
    expect(pr.body).toContain("head of channel `stable`");

    await promoteRevision(up, { package: "basens", revision: "v2", channel: "stable", author: BOT.author });
    await reconcileFanout(ctx, "blueprints");
    expect([...c1.pulls.values()].map((p) => p.number)).toEqual([pr.number]);
    expect(parseVariantPullRequestBody(c1.pulls.get(pr.number)!.body)).toMatchObject({ to: "v2" });
    expect(c1.files(pr.headRef, "basens")["a.yaml"]).toContain("a: 2");
  });

  it("goes to the head along the upgrade graph, saying which revisions the pull request takes in", async () => {
    const { up, c1, ctx, rec } = await deployedV1();
    await rec(2, publish(up, "basens", 2, { "a.yaml": "a: 2\n" }));
    await rec(3, publish(up, "basens", 3, { "a.yaml": "a: 3\n" }));

    await reconcileFanout(ctx, "blueprints");
    const pr = [...c1.pulls.values()].find((p) => p.state === "open")!;
    expect(parseVariantPullRequestBody(pr.body)).toMatchObject({ from: "v1", to: "v3" });
    expect(pr.body).toContain(
      "Upgrade path in channel `stable`: v1 → v2 → v3. This pull request goes to the head, taking in v2",
    );

    await skipRevision(up, { package: "basens", revision: "v2", author: BOT.author });
    await reconcileFanout(ctx, "blueprints");
    const after = c1.pulls.get(pr.number)!;
    expect(parseVariantPullRequestBody(after.body)).toMatchObject({ from: "v1", to: "v3" });
    expect(c1.files(pr.headRef, "basens")["a.yaml"]).toContain("a: 3");
    expect([...c1.pulls.values()].filter((p) => p.state === "open")).toHaveLength(1);
  });

  it.each([
    {
      // valid for operator-registry, refused here before
      graph: "v1; v2 skips v1; v3 skips v2; v4 replaces v3",
      entries:
        "    - {name: v1}\n    - {name: v2, skips: [v1]}\n    - {name: v3, skips: [v2]}\n    - {name: v4, replaces: v3}",
      note: "Upgrade path in channel `stable`: v1 → v2 → v3 → v4.",
    },
    {
      // v4's skipRange covers v1 (1.0.0): straight to v4, crossing nothing
      graph: "v1; v2 replaces v1; v3 replaces v2; v4 replaces v3 with skipRange <2.0.0",
      entries:
        '    - {name: v1}\n    - {name: v2, replaces: v1}\n    - {name: v3, replaces: v2}\n    - {name: v4, replaces: v3, skipRange: "<2.0.0"}',
      note: undefined,
    },
  ])("takes the path operator-registry takes from v1 in $graph", async ({ entries, note }) => {
    const { up, c1, ctx } = await deployedV1();
    for (const n of [2, 3, 4]) publish(up, "basens", n, { "a.yaml": `a: ${n}\n` });
    const catalog = (entries: string) =>
      [
        "schema: porchlight.catalog/v1",
        "packages:",
        "- name: basens",
        "  defaultChannel: stable",
        "  revisions:",
        ...[1, 2, 3, 4].map(
          (n) => `  - {revision: v${n}, commit: ${up.refs.get(`refs/tags/basens/v${n}`)}, time: t}`,
        ),
        "  channels:",
        "  - name: stable",
        "    entries:",
        entries,
      ].join("\n");
    up.commit("porchlight/catalog", { "catalog.yaml": catalog(entries) });
    await reconcileFanout(ctx, "blueprints");
    const pr = [...c1.pulls.values()].find((p) => p.state === "open")!;
    expect(parseVariantPullRequestBody(pr.body)).toMatchObject({ from: "v1", to: "v4" });
    if (note) expect(pr.body).toContain(note);
    else expect(pr.body).not.toContain("Upgrade path in channel");
    expect(c1.files(pr.headRef, "basens")["a.yaml"]).toContain("a: 4");
  });

  it("tells the downstream's pull request what the upstream catalog deprecates of what it is on and brings", async () => {
    const { up, c1, ctx, rec } = await deployedV1();
    await rec(2, publish(up, "basens", 2, { "a.yaml": "a: 2\n" }));
    const deprecated = (reference: DeprecationReference, message: string) =>
      deprecateInCatalog(up, { package: "basens", reference, message, author: BOT.author });
    await deprecated({ schema: "olm.bundle", name: "v1" }, "v1 leaks its token");
    await deprecated({ schema: "olm.channel", name: "stable" }, "follow lts instead");
    await reconcileFanout(ctx, "blueprints");
    const pr = [...c1.pulls.values()].find((p) => p.state === "open")!;
    expect(pr.body).toContain(
      "**Deprecated upstream**, as its catalog says:\n- channel `stable`: follow lts instead\n- v1, which this package is on now: v1 leaks its token\n",
    );
    expect(pr.body).not.toContain("which this pull request brings");
    // The next run writes the same body: nothing to update.
    const body = pr.body;
    await reconcileFanout(ctx, "blueprints");
    expect(c1.pulls.get(pr.number)!.body).toBe(body);
  });
});
