import { describe, expect, it } from "vitest";
import { parseCatalog, skip } from "../../../src/catalog/index.js";
import { promoteRevision } from "../../../src/jobs/catalog/promote.js";
import { readCatalog, reservedRevision } from "../../../src/jobs/catalog/read.js";
import { recordPublished, syncCatalogWithTags } from "../../../src/jobs/catalog/record-publish.js";
import {
  deprecateInCatalog,
  recordDeleted,
  removeFromCatalog,
  skipRevision,
} from "../../../src/jobs/catalog/withdraw.js";
import { fakeRepoWith } from "../fake-repo.js";

const author = { name: "porchlight[bot]", email: "bot@porchlight.test" };
const now = new Date("2024-05-01T10:00:00Z");
const kptfile = (channels?: string) =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n${channels === undefined ? "" : `  annotations:\n    porchlight.dev/channels: "${channels}"\n`}`;

function upstream() {
  const repo = fakeRepoWith({ "basens/Kptfile": kptfile() });
  const tag = (n: number, k = kptfile()) => {
    const sha = repo.commit("main", { "basens/Kptfile": k, "basens/n.txt": `${n}\n` });
    repo.refs.set(`refs/tags/basens/v${n}`, sha);
    return sha;
  };
  return { repo, tag };
}

const record = (repo: ReturnType<typeof upstream>["repo"], n: number, commit: string) =>
  recordPublished(repo, { package: "basens", revision: n, commit, defaultChannel: "stable", author, now });

async function catalogOf(repo: ReturnType<typeof upstream>["repo"]) {
  return parseCatalog((await readCatalog(repo)).text).catalog.packages[0]!;
}

describe("catalog jobs", () => {
  it("records a published revision on branch porchlight/catalog, created holding only catalog.yaml, in the default channel", async () => {
    const { repo, tag } = upstream();
    const out = await record(repo, 1, tag(1));
    expect(out.kind).toBe("committed");
    expect(Object.keys(repo.files("porchlight/catalog"))).toEqual(["catalog.yaml"]);
    const pkg = await catalogOf(repo);
    expect(pkg.revisions.map((r) => r.revision)).toEqual(["v1"]);
    expect(pkg.channels).toEqual([{ name: "stable", entries: [{ name: "v1" }] }]);
  });

  it("takes the channels from the Kptfile annotation, and records a revision once", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    const v2 = tag(2, kptfile("beta, stable"));
    await record(repo, 2, v2);
    repo.calls.length = 0;
    expect((await record(repo, 2, v2)).kind).toBe("unchanged");
    expect(repo.calls).not.toContain("commitTree");
    const pkg = await catalogOf(repo);
    expect(pkg.channels.find((c) => c.name === "stable")?.entries).toEqual([
      { name: "v1" },
      { name: "v2", replaces: "v1" },
    ]);
    expect(pkg.channels.find((c) => c.name === "beta")?.entries).toEqual([{ name: "v2" }]);
  });

  it("edits again on top of a branch that moved meanwhile (no force push)", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    const v2 = tag(2);
    let raced = false;
    repo.beforePush = (branch) => {
      if (branch !== "porchlight/catalog" || raced) return;
      raced = true;
      const text = repo.files("porchlight/catalog")["catalog.yaml"]!;
      repo.commit("porchlight/catalog", { "catalog.yaml": `# edited by a person\n${text}` });
    };
    expect((await record(repo, 2, v2)).kind).toBe("committed");
    const text = repo.files("porchlight/catalog")["catalog.yaml"]!;
    expect(text).toContain("# edited by a person");
    expect(text).toContain("revision: v2");
  });

  it("catches up with tags the catalog missed, oldest first", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    tag(2);
    tag(3);
    expect(await syncCatalogWithTags(repo, { defaultChannel: "stable", author, now })).toEqual({
      recorded: ["basens/v2", "basens/v3"],
      withdrawn: [],
    });
    expect(await syncCatalogWithTags(repo, { defaultChannel: "stable", author, now })).toEqual({
      recorded: [],
      withdrawn: [],
    });
  });

  it("withdraws a revision whose tag was deleted by hand: its channel moves back, its number stays taken", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    await record(repo, 2, tag(2));
    await record(repo, 3, tag(3));
    repo.refs.delete("refs/tags/basens/v3");
    expect(await syncCatalogWithTags(repo, { defaultChannel: "stable", author, now })).toEqual({
      recorded: [],
      withdrawn: ["basens/v3"],
    });
    const pkg = await catalogOf(repo);
    expect(pkg.revisions.map((r) => r.revision)).toEqual(["v1", "v2"]);
    expect(pkg.channels.find((c) => c.name === "stable")?.entries.map((e) => e.name)).toEqual(["v1", "v2"]);
    expect(pkg.removed).toEqual(["v3"]);
    // the next sweep finds nothing to do, and the catalog reserves number 3
    repo.calls.length = 0;
    expect(await syncCatalogWithTags(repo, { defaultChannel: "stable", author, now })).toEqual({
      recorded: [],
      withdrawn: [],
    });
    expect(repo.calls).not.toContain("commitTree");
    expect(await reservedRevision(repo, await repo.listRefs(), "basens")).toBe(3);
  });

  it("promotes into a channel and skips a revision, refusing what would break the catalog", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    await record(repo, 2, tag(2));
    await record(repo, 3, tag(3));
    expect(
      (await promoteRevision(repo, { package: "basens", revision: "v3", channel: "beta", author })).kind,
    ).toBe("committed");
    expect(
      (await promoteRevision(repo, { package: "basens", revision: "v3", channel: "beta", author })).kind,
    ).toBe("unchanged");
    const refused = await promoteRevision(repo, {
      package: "basens",
      revision: "v1",
      channel: "beta",
      author,
    });
    expect(refused).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("only moves forward"),
    });
    expect((await skipRevision(repo, { package: "basens", revision: "v2", author })).kind).toBe("committed");
    expect((await skipRevision(repo, { package: "basens", revision: "v2", author })).kind).toBe("unchanged");
    const stable = (await catalogOf(repo)).channels.find((c) => c.name === "stable")!;
    expect(stable.entries.find((e) => e.name === "v3")).toMatchObject({ replaces: "v1", skips: ["v2"] });
  });

  it("skips a revision in a channel that still offers it, though another channel skips it already", async () => {
    const { repo, tag } = upstream();
    const commits = [tag(1), tag(2), tag(3)];
    // docs/catalog.md's example: stable is v1 -> v3 skipping v2; beta still offers v1 -> v2 -> v3. Written
    // before packages had a defaultChannel: read with its first channel, stable, and written with it.
    repo.commit("porchlight/catalog", {
      "catalog.yaml": [
        "schema: porchlight.catalog/v1",
        "packages:",
        "- name: basens",
        "  revisions:",
        ...commits.map(
          (c, i) => `  - {revision: v${i + 1}, commit: ${c}, time: "2024-05-0${i + 1}T10:00:00Z"}`,
        ),
        "  channels:",
        "  - name: stable",
        "    entries: [{name: v1}, {name: v3, replaces: v1, skips: [v2]}]",
        "  - name: beta",
        "    entries: [{name: v1}, {name: v2, replaces: v1}, {name: v3, replaces: v2}]",
        "",
      ].join("\n"),
    });

    expect((await skipRevision(repo, { package: "basens", revision: "v2", author })).kind).toBe("committed");
    const beta = (await catalogOf(repo)).channels.find((c) => c.name === "beta")!;
    expect(beta.entries.find((e) => e.name === "v3")).toMatchObject({ replaces: "v1", skips: ["v2"] });
    expect((await catalogOf(repo)).defaultChannel).toBe("stable");
    expect((await skipRevision(repo, { package: "basens", revision: "v2", author })).kind).toBe("unchanged");
  });

  it("records a published deletion once, and a package published again after it is no longer deleted", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    const deleted = { package: "basens", pullRequest: 7, commit: "ab".repeat(20), author };
    expect((await recordDeleted(repo, deleted)).kind).toBe("committed");
    expect((await recordDeleted(repo, deleted)).kind).toBe("unchanged");
    expect((await catalogOf(repo)).deprecations).toEqual([
      {
        reference: { schema: "olm.package" },
        message: "deleted: #7 removed basens (merge abababa); it gets no new revision",
      },
    ]);
    // A package never published is not added to the catalog by its deletion.
    expect((await recordDeleted(repo, { ...deleted, package: "other" })).kind).toBe("unchanged");

    await record(repo, 2, tag(2));
    const again = await catalogOf(repo);
    expect(again.revisions.map((r) => r.revision)).toEqual(["v1", "v2"]);
    expect(again.deprecations).toBeUndefined();
  });

  it("removes a revision once, and the sweep never records its tag again", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    await record(repo, 2, tag(2));
    await record(repo, 3, tag(3));
    expect((await removeFromCatalog(repo, { package: "basens", revision: "v3", author })).kind).toBe(
      "refused",
    );
    expect((await removeFromCatalog(repo, { package: "basens", revision: "v2", author })).kind).toBe(
      "committed",
    );
    repo.calls.length = 0;
    expect((await removeFromCatalog(repo, { package: "basens", revision: "v2", author })).kind).toBe(
      "unchanged",
    );
    expect((await syncCatalogWithTags(repo, { defaultChannel: "stable", author, now })).recorded).toEqual([]);
    expect((await record(repo, 2, repo.refs.get("refs/tags/basens/v2")!)).kind).toBe("unchanged");
    expect(repo.calls).not.toContain("commitTree");
    expect((await catalogOf(repo)).removed).toEqual(["v2"]);
  });

  it("deprecates once; another message replaces the recorded one", async () => {
    const { repo, tag } = upstream();
    await record(repo, 1, tag(1));
    const reference = { schema: "olm.bundle", name: "v1" } as const;
    const deprecateWith = (message: string) =>
      deprecateInCatalog(repo, { package: "basens", reference, message, author });
    expect((await deprecateWith("broken")).kind).toBe("committed");
    expect((await deprecateWith("broken")).kind).toBe("unchanged");
    expect((await deprecateWith("broken; use v2")).kind).toBe("committed");
    expect((await catalogOf(repo)).deprecations).toEqual([{ reference, message: "broken; use v2" }]);
  });

  it("two edits racing for the branch both land (no force push, the loser edits again)", async () => {
    const { repo, tag } = upstream();
    for (const n of [1, 2, 3, 4]) await record(repo, n, tag(n));
    let raced = false;
    repo.beforePush = (branch) => {
      if (branch !== "porchlight/catalog" || raced) return;
      raced = true;
      // Another writer (the CLI, another replica) skips v3 between our read and our push.
      const text = repo.files("porchlight/catalog")["catalog.yaml"]!;
      repo.commit("porchlight/catalog", {
        "catalog.yaml": skip(text, "basens", "v3").text,
      });
    };
    expect((await removeFromCatalog(repo, { package: "basens", revision: "v2", author })).kind).toBe(
      "committed",
    );
    const stable = (await catalogOf(repo)).channels[0]!;
    expect(stable.entries.find((e) => e.name === "v4")).toMatchObject({
      replaces: "v1",
      skips: ["v3", "v2"],
    });
  });
});
