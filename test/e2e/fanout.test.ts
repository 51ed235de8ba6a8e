import { beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { parseCatalog, skip } from "../../src/catalog/index.js";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { configMap, kptfile, onChannels, packageVariant, topicSet } from "../util/krm.js";
import { editFile, fileOf, publishDraft, sweep, useWorld, type World } from "./harness.js";

const KPTFILE = (channels?: string) => kptfile("basens", channels ? onChannels(channels) : "");
const cm = (data: Record<string, string>) => configMap("settings", data);
const pv = (name: string, repo: string, extra = "") =>
  packageVariant({ name, upstream: "basens", repo, extra });
const SET = topicSet("edge", "basens", "edge");
const VARIANTS = [
  pv("c1", "cluster-01"),
  pv("c2", "cluster-02"),
  pv("c3", "cluster-03", "  paused: true\n"),
  SET,
].join("---\n");
const CLUSTERS = ["cluster-01", "cluster-02", "cluster-03"];

describe("fan-out end to end (forge over HTTP and git)", () => {
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const openPulls = async (repo: string) =>
    (await rest().pulls.list({ owner, repo, state: "open" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const file = async (repo: string, path: string, ref: string) =>
    (await fileOf(w, `${owner}/${repo}`, path, ref)).text;
  const dashboard = async () => {
    const issues = (
      await rest().issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    expect(issues).toHaveLength(1);
    return issues[0]!.body ?? "";
  };
  let ws = 0;
  /** A proposal of the upstream package, approved by alice: published through the bot. */
  const publish = async (files: Record<string, string>) => {
    const number = await publishDraft(
      w,
      `drafts/basens/ws${++ws}`,
      Object.fromEntries(Object.entries(files).map(([p, t]) => [`basens/${p}`, t])),
    );
    expect((await rest().pulls.get({ owner, repo: "blueprints", pull_number: number })).data.merged).toBe(
      true,
    );
    return number;
  };
  const mergeFanoutPulls = async () => {
    for (const repo of [...CLUSTERS, "edge-01"])
      for (const p of await openPulls(repo))
        await rest().pulls.merge({ owner, repo, pull_number: p.number, sha: p.head.sha });
    await w.settle();
  };
  const editDownstream = (repo: string, path: string, edit: (text: string) => string) =>
    editFile(w, `${owner}/${repo}`, path, edit, { message: `local edit of ${path}` });

  const w = useWorld({
    ".porchlight/variants/fleet.yaml": VARIANTS,
    "basens/Kptfile": KPTFILE(),
    "basens/cm.yaml": cm({ a: "1" }),
    "basens/README.md": "line one\nline two\n",
  });
  beforeAll(async () => {
    for (const repo of [...CLUSTERS, "edge-01", "other"]) {
      await w.forge.createRepo(`acme/${repo}`, {
        files: { "README.md": `# ${repo}\n` },
        topics: repo.startsWith("edge") ? ["edge"] : [],
      });
      w.forge.setPermission(`acme/${repo}`, "alice", "write");
    }
    await w.settle();
  }, 120_000);

  it("on publish, clones into each downstream with one pull request, a set selecting repositories by topic", async () => {
    await publish({ "cm.yaml": cm({ a: "1", v: "1" }) });
    for (const repo of ["cluster-01", "cluster-02", "edge-01"]) {
      const pulls = await openPulls(repo);
      expect(pulls.map((p) => p.title)).toEqual(["Clone blueprints/basens v1 into basens"]);
      expect(pulls[0]!.labels.map((l) => l.name).sort()).toEqual([
        "porchlight/automated",
        "porchlight/update",
      ]);
    }
    expect(await openPulls("cluster-03")).toEqual([]);
    expect(await openPulls("other")).toEqual([]);
    const catalog = await file("blueprints", "catalog.yaml", "porchlight/catalog");
    expect(catalog).toMatch(/revision: v1/);
    await mergeFanoutPulls();
  }, 120_000);

  it("publishes v2 into downstreams with local edits: exactly two PRs, a clean merge and a listed conflict; the dashboard shows all three", async () => {
    await editDownstream("cluster-01", "basens/cm.yaml", (t) =>
      t.replace('v: "1"', 'v: "1"\n  local: "yes"'),
    );
    await editDownstream("cluster-02", "basens/README.md", () => "line one\nline two changed downstream\n");
    await w.settle();
    await publish({
      "cm.yaml": cm({ a: "1", v: "2" }),
      "README.md": "line one\nline two changed upstream\n",
    });
    const [p1] = await openPulls("cluster-01");
    const [p2] = await openPulls("cluster-02");
    expect(await openPulls("cluster-03")).toEqual([]);
    expect(p1!.title).toBe("Update basens from v1 to v2 (blueprints/basens)");
    const merged = await file("cluster-01", "basens/cm.yaml", p1!.head.ref);
    expect(merged).toContain('local: "yes"');
    expect(merged).toContain('v: "2"');
    expect(p1!.body).not.toContain("Conflicts");
    expect(p2!.body).toMatch(/Conflicts \(1\)[\s\S]*`basens\/README\.md` line/);
    expect(parseVariantPullRequestBody(p2!.body)).toMatchObject({ from: "v1", to: "v2", conflicts: 1 });
    const board = await dashboard();
    expect(board).toMatch(/cluster-01\/basens.*v1 \| v2 \| acme\/cluster-01#\d+/);
    expect(board).toMatch(/cluster-02\/basens.*⚠️ 1 conflict/);
    expect(board).toMatch(/cluster-03\/basens.*⏸️ paused/);
    expect(board).toContain("```mermaid");
  }, 120_000);

  it("publishes v3 before v2's pull requests merge, a GitHub error mid-fan-out: the sweep ends with the same pull requests updated", async () => {
    const before = Object.fromEntries(
      await Promise.all(
        ["cluster-01", "cluster-02"].map(async (r) => [r, (await openPulls(r)).map((p) => p.number)]),
      ),
    );
    // The first pull request edit fails after its branch was pushed: the body still says v2.
    const fault = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/pulls/{pull_number}",
      method: "PATCH",
      status: 422,
      times: 1,
    });
    await publish({ "cm.yaml": cm({ a: "1", v: "3" }) });
    expect(fault.hits).toBe(1);
    // The checks finishing on the pushed heads run the fan-out again at once (check_run events), which
    // edits the pull request the fault left saying v2; the sweep finds it done.
    await sweep(w);
    for (const repo of ["cluster-01", "cluster-02"]) {
      const pulls = await openPulls(repo);
      expect(pulls.map((p) => p.number)).toEqual(before[repo]);
      expect(pulls[0]!.title).toBe("Update basens from v1 to v3 (blueprints/basens)");
    }
    const [edge] = await openPulls("edge-01");
    expect(parseVariantPullRequestBody(edge!.body)).toMatchObject({ from: "v1", to: "v3" });
    expect(
      await file("cluster-01", "basens/cm.yaml", (await openPulls("cluster-01"))[0]!.head.ref),
    ).toContain('v: "3"');
    expect(await dashboard()).not.toMatch(/⚠️ problem/);
    const writesBefore = countWrites(w);
    await sweep(w);
    expect(countWrites(w)).toBe(writesBefore);
  }, 120_000);

  it("a revision published only to beta reaches no stable follower until /promote stable", async () => {
    const n = await publish({ Kptfile: KPTFILE("beta"), "cm.yaml": cm({ a: "1", v: "4" }) });
    expect(parseVariantPullRequestBody((await openPulls("cluster-01"))[0]!.body)?.to).toBe("v3");
    await rest().issues.createComment({
      owner,
      repo: "blueprints",
      issue_number: n,
      body: "/promote stable",
    });
    await w.settle();
    expect(parseVariantPullRequestBody((await openPulls("cluster-01"))[0]!.body)?.to).toBe("v4");
  }, 120_000);

  it("a revision a person skips in the catalog is not offered to /update; another one is", async () => {
    await editFile(w, `${owner}/blueprints`, "catalog.yaml", (text) => skip(text, "basens", "v3").text, {
      message: "skip basens v3",
      branch: "porchlight/catalog",
    });
    const [pr] = await openPulls("cluster-01");
    const { data: comment } = await rest().issues.createComment({
      owner,
      repo: "cluster-01",
      issue_number: pr!.number,
      body: "/update v3\n/update v2",
    });
    await w.settle();
    const reply = (
      await rest().issues.listComments({ owner, repo: "cluster-01", issue_number: pr!.number })
    ).data
      .map((c) => c.body ?? "")
      .find((b) => b.includes(`reply comment=${comment.id}`));
    expect(reply).toContain("v3 is skipped in the catalog");
    expect(reply).toContain("Updated **basens** to upstream revision v2");
    const [after] = await openPulls("cluster-01");
    expect(after!.number).toBe(pr!.number);
    expect(parseVariantPullRequestBody(after!.body)?.to).toBe("v2");
    expect(await file("cluster-01", "basens/cm.yaml", after!.head.ref)).toContain('v: "2"');
  }, 120_000);

  it("a person's skipRange in the catalog: a stable follower's pull request takes the path operator-registry takes", async () => {
    const catalogText = async () =>
      (await fileOf(w, `${owner}/blueprints`, "catalog.yaml", "porchlight/catalog")).text;
    const latest = async () =>
      parseCatalog(await catalogText()).catalog.packages[0]!.revisions.at(-1)!.revision;
    await publish({ Kptfile: KPTFILE(), "cm.yaml": cm({ a: "1", v: "a" }) });
    const a = await latest();
    // Every revision before `a` may upgrade straight to it (vN reads as N.0.0).
    const withSkipRange = (text: string) => {
      const doc = parseDocument(text);
      const stable = parseCatalog(text).catalog.packages[0]!.channels.findIndex((c) => c.name === "stable");
      const entries = parseCatalog(text).catalog.packages[0]!.channels[stable]!.entries;
      doc.setIn(
        ["packages", 0, "channels", stable, "entries", entries.findIndex((e) => e.name === a), "skipRange"],
        `<${a.slice(1)}.0.0`,
      );
      return doc.toString({ lineWidth: 0 });
    };
    await editFile(w, `${owner}/blueprints`, "catalog.yaml", withSkipRange, {
      message: `skipRange on basens ${a}`,
      branch: "porchlight/catalog",
    });
    await publish({ Kptfile: KPTFILE(), "cm.yaml": cm({ a: "1", v: "b" }) });
    const b = await latest();
    await w.settle();

    const [pr] = await openPulls("cluster-02");
    const body = parseVariantPullRequestBody(pr!.body);
    expect(body?.to).toBe(b);
    const from = body && "from" in body ? body.from : undefined;
    expect(from && Number(from.slice(1)) < Number(a.slice(1))).toBe(true);
    expect(pr!.body).toContain(`Upgrade path in channel \`stable\`: ${from} → ${a} → ${b}.`);
  }, 120_000);
});

function countWrites(w: World): number {
  return w.forge.requestLog
    .filter({})
    .filter(
      (r) => r.method !== "GET" && !r.route.includes("access_tokens") && !r.route.endsWith("git-upload-pack"),
    ).length;
}
