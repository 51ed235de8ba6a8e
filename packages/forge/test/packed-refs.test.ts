import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, git, Workdir, type World, world } from "./helpers.js";

/**
 * A repository that gathers refs (a tag for each published revision) has them packed, as `git gc` would:
 * each push lists the refs, and a loose ref is a file read a listing. Packed or loose, every ref is served
 * the same, over git and REST. Its commit-graph is kept up at the same time.
 */
describe("a repository with many refs", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    await w?.cleanup();
  });

  it("packs them after a push, and serves every one of them, and the refs pushed after", async () => {
    const work = await Workdir.clone(w, "acme/blueprints");
    const tags = Array.from({ length: 70 }, (_, i) => `pkg/v${i + 1}`);
    for (const t of tags) await git(work.dir, "tag", t);
    await git(work.dir, "push", "-q", "origin", "--tags");
    const bare = join(w.forge.dataDir, "repos", "acme", "blueprints.git");
    expect(readFileSync(join(bare, "packed-refs"), "utf8")).toContain("refs/tags/pkg/v70");
    const loose = join(bare, "refs", "tags", "pkg");
    expect(existsSync(loose) ? readdirSync(loose) : []).toEqual([]);
    // and its commit-graph written, as `git maintenance` would: the walks of a push and a fetch read it
    const chain = readFileSync(join(bare, "objects", "info", "commit-graphs", "commit-graph-chain"), "utf8");
    expect(chain).toMatch(/^[0-9a-f]{40}\n/);
    await git(bare, "commit-graph", "verify");

    // a ref written after the packing is a loose file again, read beside packed-refs
    await git(work.dir, "tag", "pkg/v71");
    await git(work.dir, "push", "-q", "origin", "pkg/v71");
    expect(readdirSync(join(bare, "refs", "tags", "pkg"))).toEqual(["v71"]);
    const listed = (await git(work.dir, "ls-remote", "--tags", "origin"))
      .split("\n")
      .map((l) => l.split("\t")[1])
      .filter((r) => r?.startsWith("refs/tags/pkg/"));
    expect(listed.sort()).toEqual([...tags, "pkg/v71"].map((t) => `refs/tags/${t}`).sort());
    const api = client(w.forge, w.token);
    const matching = await api.paginate(api.rest.git.listMatchingRefs, {
      owner: "acme",
      repo: "blueprints",
      ref: "tags/pkg/",
    });
    expect(matching).toHaveLength(71);
  });
});
