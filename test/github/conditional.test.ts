import { type Forge, startForge } from "@porchlight/forge";
import { afterEach, describe, expect, it } from "vitest";
import { ConditionalCache } from "../../src/github/conditional-cache.js";
import { tokenOctokit } from "../../src/github/octokit.js";

let forge: Forge | undefined;
afterEach(async () => {
  await forge?.stop();
  forge = undefined;
});

const repo = { owner: "alice", repo: "blueprints" };

/** A forge with alice's repository, alice's and bob's tokens (bob may read it). */
async function stage() {
  forge = await startForge();
  const alice = forge.createUser("alice", { pat: true }).pat as string;
  const bob = forge.createUser("bob", { pat: true }).pat as string;
  await forge.createRepo("alice/blueprints", { autoInit: true, description: "first" });
  forge.setPermission("alice/blueprints", "bob", "read");
  const f = forge;
  const client = (token: string, conditional: ConditionalCache) =>
    tokenOctokit(token, { writeIntervalMs: 0, rateLimitRetries: 0, apiUrl: f.apiUrl, conditional });
  /** The statuses the forge answered `login`'s GETs of the repository with, in order. */
  const statuses = (login: string) =>
    f.requestLog.filter({ method: "GET", route: "/repos/{owner}/{repo}", login }).map((e) => e.status);
  return { forge: f, alice, bob, client, statuses };
}

describe("GETs asked again as conditional requests (ConditionalCache)", () => {
  it("serves the kept answer on a 304, and GitHub's new one once something changed", async () => {
    const s = await stage();
    const cache = new ConditionalCache();
    const octokit = s.client(s.alice, cache);
    const first = await octokit.rest.repos.get(repo);
    const again = await octokit.rest.repos.get(repo);
    expect(again.status).toBe(200);
    expect(again.data).toEqual(first.data);
    // a client made later for the same token (a later API request) shares the kept answers
    await s.client(s.alice, cache).rest.repos.get(repo);
    expect(s.statuses("alice")).toEqual([200, 304, 304]);
    // the 304s were not counted against alice's budget
    expect(Number(again.headers["x-ratelimit-used"])).toBe(1);

    await octokit.rest.repos.update({ ...repo, description: "second" });
    const changed = await octokit.rest.repos.get(repo);
    expect(changed.data.description).toBe("second");
    expect(s.statuses("alice")).toEqual([200, 304, 304, 200]);
  });

  it("hands out copies: a caller that changes its answer does not change the next one", async () => {
    const s = await stage();
    const octokit = s.client(s.alice, new ConditionalCache());
    const first = await octokit.rest.repos.get(repo);
    first.data.description = "scribbled";
    const second = await octokit.rest.repos.get(repo);
    second.data.description = "scribbled too";
    expect((await octokit.rest.repos.get(repo)).data.description).toBe("first");
    expect(s.statuses("alice")).toEqual([200, 304, 304]);
  });

  it("keeps each token's answers apart", async () => {
    const s = await stage();
    const cache = new ConditionalCache();
    await s.client(s.alice, cache).rest.repos.get(repo);
    const bobs = await s.client(s.bob, cache).rest.repos.get(repo);
    // bob's permission is his own, never alice's kept answer
    expect(bobs.data.permissions?.admin).toBe(false);
    expect(s.statuses("bob")).toEqual([200]);
  });

  it("asks in full once an answer was evicted (the cache is bounded)", async () => {
    const s = await stage();
    const octokit = s.client(s.alice, new ConditionalCache({ maxBytes: 20_000 }));
    await octokit.rest.repos.get(repo);
    await octokit.rest.repos.get(repo);
    // another answer pushes the repository's out of a cache this small
    await octokit.rest.repos.listBranches(repo);
    await octokit.rest.users.getAuthenticated();
    await octokit.rest.repos.listForAuthenticatedUser();
    await octokit.rest.repos.get(repo);
    expect(s.statuses("alice")).toEqual([200, 304, 200]);
  });

  it("leaves writes and clients without a cache alone", async () => {
    const s = await stage();
    const plain = tokenOctokit(s.alice, { writeIntervalMs: 0, rateLimitRetries: 0, apiUrl: s.forge.apiUrl });
    await plain.rest.repos.get(repo);
    await plain.rest.repos.get(repo);
    expect(s.statuses("alice")).toEqual([200, 200]);
  });
});
