import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../../src/catalog/index.js";
import { connectRepo } from "../../../src/github/connect.js";
import { syncCatalogWithTags } from "../../../src/jobs/catalog/record-publish.js";
import { useRpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const repo = { owner: "acme", repo: "blueprints" };

describe("rpkg rollback and catalog skip|deprecate|remove against the forge", () => {
  const file = async (path: string, ref: string) => {
    const { data } = await w.octokit(w.alice).rest.repos.getContent({ ...repo, path, ref });
    return Buffer.from((data as { content: string }).content, "base64").toString("utf8");
  };
  const catalogHead = async () =>
    (await w.octokit(w.alice).rest.git.getRef({ ...repo, ref: "heads/porchlight/catalog" })).data.object.sha;
  /** `porchlight catalog ARGS --repository acme/blueprints` as the token's user, against the forge. */
  const catalog = (token: string, args: string[]) => w.cli(token, ["catalog", ...args, R]);
  /** A new published revision of app whose README says `text`. */
  const release = async (workspace: string, text: string) => {
    const dir = join(w.tmp, workspace);
    await w.rpkg(w.alice, ["copy", "app/v1", R, `--workspace=${workspace}`]);
    await w.rpkg(w.alice, ["pull", `blueprints.app.${workspace}`, dir, R]);
    writeFileSync(join(dir, "README.md"), text);
    expect((await w.rpkg(w.alice, ["push", `blueprints.app.${workspace}`, dir, R])).code).toBe(0);
    expect((await w.publish("acme/blueprints", `blueprints.app.${workspace}`)).code).toBe(0);
  };

  const w = useRpkgWorld();
  beforeAll(async () => {
    await w.rpkg(w.alice, ["init", "app", R, "--workspace=w1"]);
    await w.publish("acme/blueprints", "blueprints.app.w1");
    await release("w2", "second\n");
    await release("w3", "third\n");
  }, 120_000);

  it("rpkg rollback proposes the old revision's files as a new draft, once", async () => {
    const v1Readme = await file("app/README.md", "app/v1");
    const r = await w.rpkg(w.alice, ["rollback", "blueprints.app.v1", R]);
    expect(r).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^blueprints\.app\.rollback-v1 proposed \(#\d+\)\n$/),
    });
    expect(await file("app/README.md", "drafts/app/rollback-v1")).toBe(v1Readme);
    const again = await w.rpkg(w.alice, ["rollback", "app/v1", R]);
    expect(again.stdout).toMatch(/^blueprints\.app\.rollback-v1 already proposed \(#\d+\)\n$/);
    const open = (await w.octokit(w.alice).rest.pulls.list({ ...repo, state: "open" })).data;
    expect(open.map((p) => p.title)).toEqual(["Roll back app to v1"]);
    await w.greenChecks("acme/blueprints");
    expect((await w.rpkg(w.bob, ["approve", "blueprints.app.rollback-v1", R])).code).toBe(0);
    expect(await file("app/README.md", "app/v4")).toBe(v1Readme);
  });

  it("rpkg rollback refuses the latest revision, and a revision whose content the base branch holds", async () => {
    const latest = await w.rpkg(w.alice, ["rollback", "app/v4", R]);
    expect(latest).toMatchObject({ code: 1 });
    expect(latest.stderr).toContain("v4 is app's latest revision already");
    const same = await w.rpkg(w.alice, ["rollback", "app/v1", R]);
    expect(same.stderr).toContain("`main` already holds the content of app v1 (v4 has it)");
  });

  it("catalog skip, deprecate and remove edit branch porchlight/catalog (again, they write nothing); a reader reads it", async () => {
    // The bot records published revisions in the catalog (here: its sweep's catch-up, as the bot).
    const conn = await connectRepo({ token: w.bot, apiUrl: w.forge.apiUrl, repo, cacheDir: w.tmp });
    const author = { name: "porchlight[bot]", email: "bot@example.com" };
    const now = new Date(0);
    expect(
      (await syncCatalogWithTags(conn.port, { defaultChannel: "stable", author, now })).recorded,
    ).toEqual(["app/v1", "app/v2", "app/v3", "app/v4"]);
    expect(await catalog(w.alice, ["skip", "app", "v2"])).toMatchObject({
      code: 0,
      stdout: "app v2: skipped in porchlight/catalog of acme/blueprints\n",
    });
    const skipped = await catalogHead();
    expect(await catalog(w.alice, ["skip", "app", "v2"])).toMatchObject({
      code: 0,
      stdout: "app v2: skipped already in porchlight/catalog of acme/blueprints; nothing changed\n",
    });
    expect(await catalogHead()).toBe(skipped);
    expect((await catalog(w.alice, ["deprecate", "app", "v3", "-m", "use v4"])).code).toBe(0);
    const refused = await catalog(w.alice, ["remove", "app", "v4"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "porchlight catalog remove: app v4 is the head of channel stable: removing it would break the upgrade path v1 -> v3 -> v4",
    );
    expect((await catalog(w.alice, ["remove", "app", "v3"])).stdout).toBe(
      "app v3: removed in porchlight/catalog of acme/blueprints\n",
    );
    const revisions = await catalog(w.carol, ["revisions", "app", "-o", "json"]);
    expect(JSON.parse(revisions.stdout).map((r: { revision: string }) => r.revision)).toEqual([
      "v1",
      "v2",
      "v4",
    ]);
    const pkg = parseCatalog(await file("catalog.yaml", "porchlight/catalog")).catalog.packages[0]!;
    expect(pkg.removed).toEqual(["v3"]);
    expect(pkg.deprecations).toBeUndefined();
    expect(pkg.channels[0]!.entries.find((e) => e.name === "v4")).toEqual({
      name: "v4",
      replaces: "v1",
      skips: ["v3", "v2"],
    });
  });

  it("a reader's token cannot change the catalog", async () => {
    const r = await catalog(w.carol, ["skip", "app", "v1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^porchlight catalog skip: the token may read acme\/blueprints but not write to it \(git push was refused: HTTP 403\); ask an administrator of acme\/blueprints to give you write access/,
    );
  });
});
