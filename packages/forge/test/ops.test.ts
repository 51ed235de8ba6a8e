import { request } from "node:http";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startForge } from "../src/index.js";
import { appJwt, client, git, TEST_KEY, Workdir, type World, world } from "./helpers.js";

const repo = { owner: "acme", repo: "blueprints" };

describe("forge test controls: faults, rate limits, request log", () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });
  afterEach(async () => {
    await w.cleanup();
  });

  it("logs every request with its route template, installation and status", async () => {
    w.forge.requestLog.clear();
    await w.octokit.rest.repos.get(repo);
    await w.octokit.rest.repos.get({ owner: "acme", repo: "nope" }).catch(() => undefined);
    await w.octokit.rest.issues.create({ ...repo, title: "x" });
    expect(w.forge.requestLog.count({ method: "GET", route: "/repos/{owner}/{repo}" })).toBe(2);
    expect(w.forge.requestLog.count({ route: "/repos/{owner}/{repo}", status: 404 })).toBe(1);
    expect(w.forge.requestLog.filter({ method: "POST" })).toEqual([
      expect.objectContaining({
        route: "/repos/{owner}/{repo}/issues",
        installationId: w.installationId,
        status: 201,
      }),
    ]);
    expect(w.forge.requestLog.summary()["GET /repos/{owner}/{repo}"]).toBe(2);
  });

  it("waits for a condition on forge state, re-checked after each request", async () => {
    const seen = w.forge.waitFor(
      () => w.forge.core.store.data.issues.find((i) => i.title === "later"),
      "the issue titled later",
    );
    await w.octokit.rest.repos.get(repo);
    await w.octokit.rest.issues.create({ ...repo, title: "later" });
    expect((await seen).title).toBe("later");
    await expect(w.forge.waitFor(() => false, "nothing", 10)).rejects.toThrow(
      /timed out after 10 ms waiting for nothing/,
    );
  });

  it("injects a 500 for the next n calls of a route, then serves normally", async () => {
    w.forge.faults.add({ route: "/repos/{owner}/{repo}/issues", method: "POST", status: 500, times: 1 });
    await expect(w.octokit.rest.issues.create({ ...repo, title: "a" })).rejects.toMatchObject({
      status: 500,
    });
    await expect(w.octokit.rest.issues.create({ ...repo, title: "b" })).resolves.toMatchObject({
      status: 201,
    });
  });

  it("injects latency and connection resets", async () => {
    const slow = w.forge.faults.add({ route: "/repos/{owner}/{repo}", delayMs: 20, times: 1 });
    await w.octokit.rest.repos.get(repo);
    expect(slow.hits).toBe(1);
    w.forge.faults.add({ route: "/repos/{owner}/{repo}", method: "GET", reset: true, times: 1 });
    await expect(w.octokit.rest.repos.get(repo)).rejects.toThrow();
    await expect(w.octokit.rest.repos.get(repo)).resolves.toMatchObject({ status: 200 });
  });

  it("applies a `*` fault to every request a route's own fault does not match", async () => {
    const own = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/issues",
      method: "POST",
      status: 500,
      times: 1,
    });
    const every = w.forge.faults.add({ route: "*", delayMs: 1 });
    await w.octokit.rest.repos.get(repo);
    await expect(w.octokit.rest.issues.create({ ...repo, title: "a" })).rejects.toMatchObject({
      status: 500,
    });
    await w.octokit.rest.issues.create({ ...repo, title: "b" });
    expect([own.hits, every.hits]).toEqual([1, 2]);
    w.forge.faults.remove(every);
  });

  it("holds a request with a hang fault until released, then serves it; a client that gives up is let go", async () => {
    const hang = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/issues",
      method: "POST",
      hang: true,
      times: 1,
    });
    const created = w.octokit.rest.issues.create({ ...repo, title: "held" });
    await w.forge.waitFor(() => w.forge.faults.holding(hang) === 1, "the held request");
    expect(w.forge.core.store.data.issues.some((i) => i.title === "held")).toBe(false);
    // Exhausted (times: 1): other requests pass while the first stays held.
    await expect(w.octokit.rest.issues.create({ ...repo, title: "free" })).resolves.toMatchObject({
      status: 201,
    });
    w.forge.faults.release(hang);
    await expect(created).resolves.toMatchObject({ status: 201 });
    expect(w.forge.core.store.data.issues.filter((i) => i.title === "held")).toHaveLength(1);

    const again = w.forge.faults.add({ route: "/repos/{owner}/{repo}/issues", method: "POST", hang: true });
    const abort = new AbortController();
    const gaveUp = w.octokit.rest.issues.create({
      ...repo,
      title: "abandoned",
      request: { signal: abort.signal },
    });
    await w.forge.waitFor(() => w.forge.faults.holding(again) === 1, "the second held request");
    abort.abort();
    await expect(gaveUp).rejects.toThrow();
    await w.forge.waitFor(() => w.forge.faults.holding(again) === 0, "the abandoned request let go");
    w.forge.faults.remove(again);
    expect(w.forge.core.store.data.issues.some((i) => i.title === "abandoned")).toBe(false);
  });

  it("fails a git push when the receive-pack route is faulted", async () => {
    const wd = await Workdir.clone(w, "acme/blueprints");
    w.forge.faults.add({ route: "/{owner}/{repo}.git/git-receive-pack", status: 500, times: 1 });
    await expect(wd.commit("drafts/x", { a: "1\n" })).rejects.toThrow(/500|unexpected/);
    await expect(git(wd.dir, "push", "-q", "origin", "HEAD:refs/heads/drafts/x")).resolves.toBe("");
  });

  it("sends primary rate-limit headers and refuses with 403 once exhausted", async () => {
    w.forge.rateLimit.primary({ limit: 2 });
    const ok = await w.octokit.rest.repos.get(repo);
    expect(ok.headers["x-ratelimit-limit"]).toBe("2");
    expect(ok.headers["x-ratelimit-remaining"]).toBe("1");
    expect(ok.headers["x-ratelimit-resource"]).toBe("core");
    await w.octokit.rest.repos.get(repo);
    await expect(w.octokit.rest.repos.get(repo)).rejects.toMatchObject({
      status: 403,
      response: {
        headers: { "x-ratelimit-remaining": "0" },
        data: { message: `API rate limit exceeded for installation ID ${w.installationId}.` },
      },
    });
    w.forge.rateLimit.reset();
    w.forge.rateLimit.primary({ limit: 5000 });
    await expect(w.octokit.rest.repos.get(repo)).resolves.toMatchObject({ status: 200 });
  });

  it("applies a secondary rate limit to every n-th mutation with retry-after", async () => {
    w.forge.rateLimit.secondary({ everyNthMutation: 2, retryAfter: 7 });
    await w.octokit.rest.issues.create({ ...repo, title: "one" });
    const err = await w.octokit.rest.issues.create({ ...repo, title: "two" }).catch((e) => e);
    expect(err).toMatchObject({ status: 403, response: { headers: { "retry-after": "7" } } });
    expect(err.response.data.message).toMatch(/^You have exceeded a secondary rate limit/);
    await w.octokit.rest.repos.get(repo);
    await expect(w.octokit.rest.issues.create({ ...repo, title: "three" })).resolves.toMatchObject({
      status: 201,
    });
  });

  it("answers GitHub's error shapes: 401 Bad credentials, 404 Not Found, 422 Validation Failed, 400 bad JSON", async () => {
    const bad = await fetch(`${w.forge.apiUrl}/repos/acme/blueprints`, {
      headers: { authorization: "token ghs_x" },
    });
    expect([bad.status, await bad.json()]).toEqual([
      401,
      { message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" },
    ]);
    const unknown = await fetch(`${w.forge.url}/no/such/route`);
    expect(unknown.status).toBe(404);
    await expect(
      w.octokit.request("POST /repos/{owner}/{repo}/issues", { ...repo } as never),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: "Validation Failed",
          errors: [{ resource: "Issue", field: "title", code: "missing_field" }],
        },
      },
    });
    const json = await fetch(`${w.forge.url}/repos/acme/blueprints/issues`, {
      method: "POST",
      headers: { authorization: `token ${w.token}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect([json.status, ((await json.json()) as { message: string }).message]).toEqual([
      400,
      "Problems parsing JSON",
    ]);
  });

  it("accepts gzip-encoded JSON bodies", async () => {
    const res = await fetch(`${w.forge.url}/repos/acme/blueprints/issues`, {
      method: "POST",
      headers: {
        authorization: `token ${w.token}`,
        "content-type": "application/json",
        "content-encoding": "gzip",
      },
      body: gzipSync(JSON.stringify({ title: "zipped" })),
    });
    expect([res.status, ((await res.json()) as { title: string }).title]).toEqual([201, "zipped"]);
  });

  it("survives a client that disconnects mid-push", async () => {
    const url = new URL(`${w.forge.url}/acme/blueprints.git/git-receive-pack`);
    await new Promise<void>((resolve) => {
      const req = request(url, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`x-access-token:${w.token}`).toString("base64")}`,
          "content-type": "application/x-git-receive-pack-request",
          "transfer-encoding": "chunked",
        },
      });
      req.on("error", () => resolve());
      req.write(
        `00940000000000000000000000000000000000000000 ${"1".repeat(40)} refs/heads/cut\0 report-status\n0000PACK`,
      );
      setImmediate(() => {
        req.destroy();
        resolve();
      });
    });
    const wd = await Workdir.clone(w, "acme/blueprints", "after-cut");
    await wd.commit("drafts/after", { b: "2\n" });
    const refs = (await w.octokit.rest.git.listMatchingRefs({ ...repo, ref: "heads/" })).data.map(
      (r) => r.ref,
    );
    expect(refs).toEqual(["refs/heads/drafts/after", "refs/heads/main"]);
  });
});

describe("forge clock: token expiry", () => {
  it("rejects installation tokens after an hour and app JWTs that are expired", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const forge = await startForge({ now: () => new Date(now) });
    try {
      const app = forge.createApp({ privateKeyPem: TEST_KEY });
      await forge.createRepo("acme/r", { autoInit: true });
      const inst = forge.createInstallation(app.appId, "acme");
      const jwt = appJwt(app.appId, app.privateKeyPem, Math.floor(now / 1000));
      const appClient = client(forge, jwt);
      const { data } = await appClient.rest.apps.createInstallationAccessToken({ installation_id: inst.id });
      expect(data.expires_at).toBe("2026-01-01T01:00:00Z");
      const bot = client(forge, data.token);
      await bot.rest.repos.get({ owner: "acme", repo: "r" });
      now += 61 * 60 * 1000;
      await expect(bot.rest.repos.get({ owner: "acme", repo: "r" })).rejects.toMatchObject({ status: 401 });
      await expect(appClient.rest.apps.listInstallations()).rejects.toMatchObject({ status: 401 });
    } finally {
      await forge.stop();
    }
  });

  it("limits mutations per forge-clock minute when asked to", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const forge = await startForge({ now: () => new Date(now) });
    try {
      const app = forge.createApp({ privateKeyPem: TEST_KEY });
      await forge.createRepo("acme/r", { autoInit: true });
      const inst = forge.createInstallation(app.appId, "acme");
      const bot = client(forge, forge.installationToken(inst.id));
      forge.rateLimit.secondary({ perMinute: 2, retryAfter: 60, status: 429 });
      const r = { owner: "acme", repo: "r" };
      await bot.rest.issues.create({ ...r, title: "1" });
      await bot.rest.issues.create({ ...r, title: "2" });
      await expect(bot.rest.issues.create({ ...r, title: "3" })).rejects.toMatchObject({
        status: 429,
        response: { headers: { "retry-after": "60" } },
      });
      // Counted per installation, as GitHub counts: another installation's writes go on.
      forge.createUser("other", { type: "Organization" });
      await forge.createRepo("other/r", { autoInit: true });
      const other = client(forge, forge.installationToken(forge.createInstallation(app.appId, "other").id));
      await expect(
        other.rest.issues.create({ owner: "other", repo: "r", title: "1" }),
      ).resolves.toMatchObject({
        status: 201,
      });
      now += 61_000;
      await expect(bot.rest.issues.create({ ...r, title: "4" })).resolves.toMatchObject({ status: 201 });
    } finally {
      await forge.stop();
    }
  });
});
