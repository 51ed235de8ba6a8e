import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitAs, identity } from "../util/git-identity.js";
import { until as waitFor } from "../util/waits.js";
import { type ApiWorld, apiWorld } from "./world.js";

const git = gitAs("alice");

const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
const DRAFTS = 8;

interface Revision {
  metadata: { name: string; creationTimestamp?: string };
}

interface Event {
  type: string;
  object: {
    kind?: string;
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
  };
}

/** What the test waits for, asked every 50 ms, 600 times at the most unless told (test/util/waits.ts). */
const until = (what: string, check: () => boolean | Promise<boolean>, turns = 600) =>
  waitFor(check, what, 50, turns);

/**
 * Porch's API serves package revisions from one index per namespace (src/porch/revision-index.ts), here
 * as `porchlight api` alone (no webhooks): a list asks GitHub only what moves, as conditional requests,
 * and reads nothing of a commit it read before; watched namespaces are read once per poll for all their
 * watchers; each caller sees only the repositories their own token reads; bookmarks as the API server's.
 * Costs are the forge's counts: a request counted against a caller's budget is one of theirs to the REST
 * API not answered 304 (git's own requests are not counted by GitHub).
 */
describe("Porch's API from the index of package revisions (porchlight api, no webhooks)", () => {
  let w: ApiWorld;
  let clone: string;

  /** The REST requests of `login` GitHub counts against their hourly budget. */
  const budget = (login: string) =>
    w.forge.requestLog.entries.filter(
      (e) => e.login === login && e.status !== 304 && !e.route.includes(".git/"),
    );
  const names = (body: string) =>
    (JSON.parse(body) as { items: { metadata: { name: string } }[] }).items.map((o) => o.metadata.name);

  /** Pushes a draft `drafts/PKG/WS` of acme/blueprints with git, as a person does outside the API. */
  const pushDrafts = async (pkgs: string[]) => {
    for (const pkg of pkgs) {
      await git(clone, "checkout", "-q", "-B", `drafts/${pkg}/ws`, "origin/main");
      mkdirSync(join(clone, pkg), { recursive: true });
      writeFileSync(
        join(clone, pkg, "Kptfile"),
        `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${pkg}\n  labels:\n    tier: t${pkg.length}\ninfo:\n  description: ${pkg}\n`,
      );
      await git(clone, "add", ".");
      await git(clone, "commit", "-q", "-m", `${pkg}: a draft made with git`);
    }
    await git(clone, "push", "-q", "origin", ...pkgs.map((p) => `drafts/${p}/ws`));
  };

  /** A watch over HTTPS as `token`, its events as they come. */
  const watch = (token: string, query = "") => {
    const events: Event[] = [];
    let status = 0;
    let buffered = "";
    const req = request(`${w.url}${REVISIONS}?watch=true${query}`, {
      ca: w.caPem,
      headers: { authorization: `Bearer ${token}` },
    });
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffered += chunk;
        let nl = buffered.indexOf("\n");
        while (nl >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line) as Event);
          nl = buffered.indexOf("\n");
        }
      });
    });
    req.on("error", () => {});
    req.end();
    return { events, status: () => status, close: () => req.destroy() };
  };
  const added = (events: Event[], name: string) =>
    events.some((e) => e.type === "ADDED" && e.object.metadata?.name === name);

  beforeAll(async () => {
    w = await apiWorld({ watchPollMs: 200, env: { PORCHLIGHT_API_WATCH_BOOKMARK_MS: "300" } });
    clone = join(w.tmp, "blueprints-index");
    await git(w.tmp, "clone", "-q", w.forge.cloneUrl("acme/blueprints", w.alice), clone);
    await pushDrafts(Array.from({ length: DRAFTS }, (_, i) => `pkg${i}`));
    expect((await w.rpkg(w.alice, ["init", "app", "--repository=acme/deploy", "--workspace=ws"])).code).toBe(
      0,
    );
  }, 120_000);
  afterAll(() => w?.stop());

  it("lists again for at most one counted request, reading no file of a commit read before; a push shows at the next list", async () => {
    const first = await w.request(REVISIONS, { token: w.alice });
    expect(first.status).toBe(200);
    expect(names(first.body)).toEqual([
      ...Array.from({ length: DRAFTS }, (_, i) => `blueprints.pkg${i}.ws`),
      "deploy.app.ws",
    ]);
    for (let i = 0; i < 3; i++) {
      w.forge.requestLog.clear();
      const again = await w.request(REVISIONS, { token: w.alice });
      expect(again.body).toBe(first.body);
      expect(budget("alice").map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([]);
      // each revision's Kptfile and history were read once, by commit: no file is asked again
      expect(w.forge.requestLog.count({ route: "/repos/{owner}/{repo}/contents/{path}" })).toBe(0);
    }
    // a field selector on the Kptfile's labels is answered from the index too
    const selected = await w.request(
      `${REVISIONS}?fieldSelector=${encodeURIComponent("spec.packageMetadata.labels[tier]=t4")}`,
      { token: w.alice },
    );
    expect(names(selected.body)).toEqual(Array.from({ length: DRAFTS }, (_, i) => `blueprints.pkg${i}.ws`));
    await pushDrafts(["later"]);
    expect(names((await w.request(REVISIONS, { token: w.alice })).body)).toContain("blueprints.later.ws");
  }, 120_000);

  it("reads a watched namespace once per poll for all its watchers, wakes each on a push, and an idle watch spends no budget", async () => {
    const watches = [watch(w.alice), watch(w.bob), watch(w.carol)];
    try {
      for (const x of watches) await until("the first events", () => added(x.events, "deploy.app.ws"));
      w.forge.requestLog.clear();
      // a few polls of the namespace: acme/blueprints' pull requests listed again each time
      const polls = () =>
        w.forge.requestLog.filter({ method: "GET", route: "/repos/{owner}/{repo}/pulls" }).length;
      await until("a few polls", () => polls() >= 5);
      // the polls were made with one watcher's token; the others' only had their access checked again
      const reads = w.forge.requestLog.entries.filter((e) => e.route !== "/repos/{owner}/{repo}");
      expect(new Set(reads.map((e) => e.login)).size).toBe(1);
      // and nothing of it was counted against anyone's budget
      expect(["alice", "bob", "carol"].flatMap((l) => budget(l))).toEqual([]);
      await pushDrafts(["pushed"]);
      for (const x of watches) await until("the pushed draft", () => added(x.events, "blueprints.pushed.ws"));
    } finally {
      for (const x of watches) x.close();
    }
  }, 120_000);

  it("shows each caller the repositories their own token reads, and forgets one once their access goes", async () => {
    const carols = async () => names((await w.request(REVISIONS, { token: w.carol })).body);
    expect(await carols()).toContain("deploy.app.ws");
    w.forge.setPermission("acme/deploy", "carol", "none");
    try {
      // within the bound an answer of GitHub's is trusted (10 s), never longer
      await until(
        "deploy's revisions gone from carol's list",
        async () => !(await carols()).includes("deploy.app.ws"),
        800,
      );
      expect(names((await w.request(REVISIONS, { token: w.alice })).body)).toContain("deploy.app.ws");
      const got = await w.request(`${REVISIONS}/deploy.app.ws`, { token: w.carol });
      expect(got.status).toBe(404);
    } finally {
      w.forge.setPermission("acme/deploy", "carol", "read");
    }
  }, 120_000);

  it("sends bookmarks when asked, ends the initial events with one, resumes from its version, and answers 410 only for a version it never gave", async () => {
    const x = watch(
      w.alice,
      "&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
    );
    let bookmark: Event | undefined;
    try {
      await until("the end of the initial events", () =>
        x.events.some(
          (e) =>
            e.type === "BOOKMARK" && e.object.metadata?.annotations?.["k8s.io/initial-events-end"] === "true",
        ),
      );
      const first = x.events.findIndex((e) => e.type === "BOOKMARK");
      expect(x.events.slice(0, first).every((e) => e.type === "ADDED")).toBe(true);
      expect(x.events[first]?.object.kind).toBe("PackageRevision");
      await until("a periodic bookmark", () => x.events.filter((e) => e.type === "BOOKMARK").length >= 2);
      bookmark = x.events.filter((e) => e.type === "BOOKMARK").at(-1);
    } finally {
      x.close();
    }
    const version = bookmark?.object.metadata?.resourceVersion ?? "";
    expect(version).not.toBe("");
    const resumed = watch(w.alice, `&resourceVersion=${version}&timeoutSeconds=2`);
    await until("the resumed watch's answer", () => resumed.status() !== 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(resumed.events.filter((e) => e.type === "ERROR")).toEqual([]);
    resumed.close();
    const stale = watch(w.alice, "&resourceVersion=0123456789abcdef");
    await until("the stale watch's error", () => stale.events.length > 0);
    expect(stale.events[0]).toMatchObject({ type: "ERROR", object: { code: 410, reason: "Expired" } });
    stale.close();
  }, 120_000);

  it("dates a branch's package by its own last change, and reads the Kptfiles of commits it fetched from git, not the REST API", async () => {
    // commits to main at known times, each changing what its message says
    const commitAt = async (day: string, files: Record<string, string>) => {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(clone, path, ".."), { recursive: true });
        writeFileSync(join(clone, path), text);
      }
      await git(clone, "add", ".");
      await promisify(execFile)("git", ["commit", "-q", "-m", `main on ${day}`], {
        cwd: clone,
        env: {
          ...process.env,
          ...identity("alice"),
          GIT_AUTHOR_DATE: `${day}T00:00:00Z`,
          GIT_COMMITTER_DATE: `${day}T00:00:00Z`,
        },
      });
      await git(clone, "push", "-q", "origin", "HEAD:main");
    };
    const kptfile = (name: string, v: string) =>
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  labels:\n    v: "${v}"\n`;
    const created = async () => {
      const body = (await w.request(REVISIONS, { token: w.alice })).body;
      const items = (JSON.parse(body) as { items: Revision[] }).items;
      const at = (name: string) => items.find((o) => o.metadata.name === name)?.metadata.creationTimestamp;
      return [at("blueprints.placeda.main"), at("blueprints.placedb.main")];
    };
    // what a list asks GitHub's REST API of a package's Kptfile (the commits it reads are in its clone)
    const kptfileReads = () =>
      w.forge.requestLog.entries.filter((e) => /\/contents\/placed[ab]\/Kptfile/.test(e.path)).length;
    await git(clone, "checkout", "-q", "-B", "main", "origin/main");
    await commitAt("2026-01-01", {
      "placeda/Kptfile": kptfile("placeda", "1"),
      "placedb/Kptfile": kptfile("placedb", "1"),
    });
    await commitAt("2026-01-02", { "placedb/Kptfile": kptfile("placedb", "2") });
    expect(await created()).toEqual(["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]);
    // a change outside both packages moves neither date; a change of one, that one's
    await commitAt("2026-01-03", { "elsewhere/notes.txt": "a note\n" });
    expect(await created()).toEqual(["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]);
    await commitAt("2026-01-04", { "placeda/Kptfile": kptfile("placeda", "4") });
    expect(await created()).toEqual(["2026-01-04T00:00:00Z", "2026-01-02T00:00:00Z"]);
    const labels = JSON.parse(
      (await w.request(`${REVISIONS}/blueprints.placeda.main`, { token: w.alice })).body,
    ).spec.packageMetadata.labels;
    expect(labels).toEqual({ v: "4" });
    // the Kptfiles of commits the index fetched were read from its clone: none of alice's budget
    expect(kptfileReads()).toBe(0);
  }, 120_000);
});
