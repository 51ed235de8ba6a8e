import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { afterEach, describe, expect, it } from "vitest";
import { conditionalGets } from "../../src/github/conditional.js";
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

describe("the same GETs asked at once (conditionalGets' flights)", () => {
  it("asks GitHub once for the same GETs made together, each caller its own copy", async () => {
    const s = await stage();
    const cache = new ConditionalCache();
    // three registrations of one repository read at once, each through a client of its own
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => s.client(s.alice, cache).rest.repos.get(repo)));
    expect(s.statuses("alice")).toEqual([200]);
    expect([a, b, c].map((x) => x?.data.description)).toEqual(["first", "first", "first"]);
    if (a) a.data.description = "scribbled";
    expect([b, c].map((x) => x?.data.description)).toEqual(["first", "first"]);
    // another token's same GET is its own
    await Promise.all([
      s.client(s.alice, cache).rest.repos.get(repo),
      s.client(s.bob, cache).rest.repos.get(repo),
    ]);
    expect(s.statuses("alice")).toEqual([200, 304]);
    expect(s.statuses("bob")).toEqual([200]);
  });

  /** A fetch that holds each request until the test answers it, as GitHub would (an ETag by description). */
  function heldGitHub() {
    let description = "first";
    const asked: { ifNoneMatch: string | null; answer: () => void }[] = [];
    const fetch = (_url: string, init: { headers: Record<string, string> }) =>
      new Promise<globalThis.Response>((resolve) => {
        const ifNoneMatch = new Headers(init.headers).get("if-none-match");
        asked.push({
          ifNoneMatch,
          answer: () => {
            const etag = `"${description}"`;
            const headers = { etag, "content-type": "application/json" };
            resolve(
              ifNoneMatch === etag
                ? new globalThis.Response(null, { status: 304, headers })
                : new globalThis.Response(JSON.stringify({ description }), { status: 200, headers }),
            );
          },
        });
      });
    const cache = new ConditionalCache();
    /** A client of alice's (its own Octokit, the one cache), through this GitHub; `request` adds to its options. */
    const client = (request: { fetch?: typeof fetch; signal?: AbortSignal } = {}) =>
      new (Octokit.plugin(conditionalGets(cache.forToken("alice's token"))))({
        request: { fetch, ...request },
        log: quiet,
      });
    return { asked, fetch, client, change: (d: string) => (description = d) };
  }

  it("asks a GET made while the same one is in the air again after it, with its ETag, and sees a change made meanwhile", async () => {
    const gh = heldGitHub();
    const client = () => gh.client();
    const inAir = client().request("GET /repos/{owner}/{repo}", repo);
    await until(() => gh.asked.length === 1);
    // the repository changes, then two more callers ask: the answer in the air may predate the change
    gh.change("second");
    const later = [
      client().request("GET /repos/{owner}/{repo}", repo),
      client().request("GET /repos/{owner}/{repo}", repo),
    ];
    await settle();
    expect(gh.asked).toHaveLength(1);
    gh.asked[0]?.answer();
    expect((await inAir).data).toEqual({ description: "second" });
    await until(() => gh.asked.length === 2);
    // one request for both, asked with the ETag the first brought
    expect(gh.asked[1]?.ifNoneMatch).toBe('"second"');
    gh.asked[1]?.answer();
    expect((await Promise.all(later)).map((r) => r.data)).toEqual([
      { description: "second" },
      { description: "second" },
    ]);
    expect(gh.asked).toHaveLength(2);
  });

  it("answers a GET made after a change, while an older one is in the air, with the change", async () => {
    const gh = heldGitHub();
    const client = () => gh.client();
    const inAir = client().request("GET /repos/{owner}/{repo}", repo);
    await until(() => gh.asked.length === 1);
    // GitHub answers the first from before the change; the answer is still on its way
    gh.asked[0]?.answer();
    gh.change("second");
    const later = client().request("GET /repos/{owner}/{repo}", repo);
    expect((await inAir).data).toEqual({ description: "first" });
    await until(() => gh.asked.length === 2);
    gh.asked[1]?.answer();
    expect((await later).data).toEqual({ description: "second" });
  });

  it("lets each caller ask for itself when the request it joined was given up by its sender", async () => {
    const gh = heldGitHub();
    const client = () => gh.client();
    const giveUp = new AbortController();
    const fetchWithSignal = (url: string, init: { headers: Record<string, string>; signal?: AbortSignal }) =>
      new Promise<globalThis.Response>((resolve, reject) => {
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        void gh.fetch(url, init).then(resolve);
      });
    const withSignal = gh.client({ fetch: fetchWithSignal, signal: giveUp.signal });
    const first = withSignal.request("GET /repos/{owner}/{repo}", repo);
    const second = client().request("GET /repos/{owner}/{repo}", repo);
    await until(() => gh.asked.length === 1);
    giveUp.abort(new Error("the caller went away"));
    await expect(first).rejects.toThrow();
    await until(() => gh.asked.length === 2);
    gh.asked[1]?.answer();
    expect((await second).data).toEqual({ description: "first" });
  });
});

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
/** Lets pending promises run (no timers). */
const settle = () => new Promise((r) => setImmediate(r));
/** Waits, a turn of the event loop at a time, for `done`. */
async function until(done: () => boolean) {
  for (let i = 0; i < 1000 && !done(); i++) await settle();
  expect(done()).toBe(true);
}
