import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPorchApi } from "../../src/cli/api.js";
import { porchlightWith } from "../cli/pkg-fixture.js";
import { packageVariant } from "../util/krm.js";
import {
  branchHead,
  editFile,
  fileOf,
  publishDraft,
  rpkgAs,
  sweep,
  sweepWrites,
  tagsOf,
  useWorld,
  WEB_KPTFILE,
  webSettings,
} from "./harness.js";

const R = "--repository=acme/blueprints";
const VARIANT = packageVariant({ name: "c1", upstream: "apps/web", repo: "cluster-01", package: "web" });
const FLEET = ".porchlight/variants/fleet.yaml";

/**
 * Issue #67: a published revision deleted as Porch's tutorial does it (`rpkg propose-delete`, then `rpkg
 * del`, or Porch's API's DELETE of the DeletionProposed revision) came back within one sweep: the sweep
 * saw the merged proposal without its tag and published it again, and fan-out could propose it to the
 * downstreams. Here each deletion is followed by several sweeps and a restart of the app, and every one
 * of them must find nothing to do: no tag, no write, the catalog as the deletion left it.
 */
describe("a deleted revision stays deleted (forge over HTTP and git, the app's sweeps and a restart)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = (user = "alice") => w.users[user]!.rest;
  const tags = () => tagsOf(w, "apps/web/");
  const catalogHead = () => branchHead(w, "porchlight/catalog");
  const downstreamPulls = async () =>
    (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data.map((p) => p.body ?? "");
  const rpkg = async (user: string, args: string[]) => {
    const r = await rpkgAs(w, user, [...args, R]);
    await w.settle();
    return r;
  };
  /**
   * Three sweeps, a restart (the new app's first sweep), then two more: each writes nothing at all. With
   * `catchUp`, the first may write the dashboard and close the downstream's proposal of the deleted
   * revision (the catalog withdrew it, so the channel is back at the revision the downstream is on): a
   * deletion no event told the app of (Porch's own proposal has no pull request, and GitHub sends no event
   * the app takes for a deleted tag).
   */
  const sweepsAndRestartWriteNothing = async ({ catchUp = false } = {}) => {
    if (catchUp)
      for (const write of await sweepWrites(w))
        expect([
          "PATCH /repos/{owner}/{repo}/issues/{issue_number}",
          "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
        ]).toContain(write);
    for (let i = 0; i < 3; i++) expect(await sweepWrites(w)).toEqual([]);
    await w.restart();
    await w.settle();
    expect(await sweepWrites(w)).toEqual([]);
    expect(await sweepWrites(w)).toEqual([]);
  };
  const pausedVariant = (paused: boolean) =>
    editFile(w, `${owner}/${repo}`, FLEET, () => (paused ? `${VARIANT}  paused: true\n` : VARIANT), {
      message: paused ? "pause c1" : "resume c1",
    });

  const w = useWorld({
    ".github/porchlight.yml": "mergeMethod: merge\n",
    [FLEET]: VARIANT,
    "apps/web/Kptfile": WEB_KPTFILE,
    "apps/web/cm.yaml": webSettings("0"),
  });
  beforeAll(async () => {
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission("acme/cluster-01", "alice", "write");
    await w.settle();
    // v1, taken by the downstream: its fan-out pull request merged
    await publishDraft(w, "drafts/apps/web/first", { "apps/web/cm.yaml": webSettings("1") });
    const [fanout] = (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data;
    expect(fanout?.body).toContain('"to":"v1"');
    await rest().pulls.merge({
      owner,
      repo: "cluster-01",
      pull_number: fanout!.number,
      sha: fanout!.head.sha,
    });
    await w.settle();
  }, 120_000);
  afterAll(() => {
    expect(w.forge.errors).toEqual([]);
  });

  it("rpkg propose-delete, then rpkg del: the tag never comes back, the catalog stays, and the fan-out proposes nothing", async () => {
    // v2, published while the variant is paused, so that no downstream has been offered it
    await pausedVariant(true);
    await w.settle();
    await publishDraft(w, "drafts/apps/web/second", { "apps/web/cm.yaml": webSettings("2") });
    const v1 = (await tags())["apps/web/v1"];
    expect(Object.keys(await tags())).toEqual(["apps/web/v1", "apps/web/v2"]);

    expect(await rpkg("alice", ["propose-delete", "blueprints.apps.web.second"])).toMatchObject({ code: 0 });
    expect(await rpkg("bob", ["del", "blueprints.apps.web.second"])).toMatchObject({
      code: 0,
      stdout: "blueprints.apps.web.second deleted\n",
    });
    expect(await tags()).toEqual({ "apps/web/v1": v1 });
    const catalog = await catalogHead();

    await sweepsAndRestartWriteNothing();
    expect(await tags()).toEqual({ "apps/web/v1": v1 });
    expect(await catalogHead()).toBe(catalog);

    // the variant resumed: the downstream is on v1, the latest revision there is; nothing to propose
    // (a push to main is no event fan-out acts on: the sweep reconciles the variant, and the dashboard)
    await pausedVariant(false);
    await w.settle();
    await sweep(w);
    expect(await downstreamPulls()).toEqual([]);
    expect(await tags()).toEqual({ "apps/web/v1": v1 });
    // the merged proposal says why the sweep leaves it alone
    const second = (
      await rest().pulls.list({ owner, repo, state: "closed", head: `${owner}:drafts/apps/web/second` })
    ).data[0];
    expect(second?.labels.map((l) => l.name)).toContain("porchlight/deleted");
  });

  it("Porch's API: DELETE of the DeletionProposed revision deletes it for good", async () => {
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    for (const u of ["alice", "bob"]) w.forge.setPermission("acme/.porchlight", u, "write");
    const env = { GH_TOKEN: w.users.alice!.pat, PATH: process.env.PATH ?? "" };
    const registered = await porchlightWith(
      process.cwd(),
      env,
      "repo",
      "register",
      `${owner}/${repo}`,
      "--namespace=acme",
      `--api-url=${w.forge.apiUrl}`,
    );
    expect(registered.code).toBe(0);
    const api = await startPorchApi({
      host: "127.0.0.1",
      port: 0,
      apiUrl: w.forge.apiUrl,
      env: { PORCHLIGHT_API_HTTP: "loopback" },
    });
    try {
      await publishDraft(w, "drafts/apps/web/third", { "apps/web/cm.yaml": webSettings("3") });
      const before = await tags();
      expect(Object.keys(before)).toHaveLength(2);
      expect(await rpkg("alice", ["propose-delete", "blueprints.apps.web.third"])).toMatchObject({ code: 0 });
      const res = await fetch(
        `${api.url}/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions/blueprints.apps.web.third`,
        { method: "DELETE", headers: { authorization: `Bearer ${w.users.bob!.pat}` } },
      );
      expect(res.status).toBe(200);
      await w.settle();
      const left = { "apps/web/v1": before["apps/web/v1"] };
      expect(await tags()).toEqual(left);

      await sweepsAndRestartWriteNothing();
      expect(await tags()).toEqual(left);
    } finally {
      await api.close();
    }
  });

  it("a deletion Porch proposed (its deletionProposed/ branch, no pull request), carried out by rpkg del, stays", async () => {
    await publishDraft(w, "drafts/apps/web/fourth", { "apps/web/cm.yaml": webSettings("4") });
    const before = await tags();
    const tagged = Object.entries(before).find(([t]) => t !== "apps/web/v1");
    expect(tagged).toBeDefined();
    // Porch's proposal: its branch on the tagged commit, nothing else
    const clone = await w.clone("alice");
    await clone.git("fetch", "--quiet", "origin", "--tags");
    await clone.git("push", "--quiet", "origin", `${tagged![1]}:refs/heads/deletionProposed/apps/web/fourth`);
    await w.settle();
    expect(await rpkg("bob", ["del", "blueprints.apps.web.fourth"])).toMatchObject({ code: 0 });
    const left = { "apps/web/v1": before["apps/web/v1"] };
    expect(await tags()).toEqual(left);

    await sweepsAndRestartWriteNothing({ catchUp: true });
    expect(await tags()).toEqual(left);
    // the downstream, on v1, is offered nothing: the deleted revision's proposal is closed
    expect(await downstreamPulls()).toEqual([]);
  });

  it("a deleted draft and a deleted proposal do not come back", async () => {
    await (await w.clone("alice")).push("drafts/apps/web/scratch", { "apps/web/cm.yaml": webSettings("s") });
    await w.settle();
    const { number } = await w.propose("drafts/apps/web/review", { "apps/web/cm.yaml": webSettings("r") });
    expect(await rpkg("bob", ["del", "blueprints.apps.web.scratch"])).toMatchObject({ code: 0 });
    expect(await rpkg("bob", ["del", "blueprints.apps.web.review"])).toMatchObject({ code: 0 });
    const branches = async () =>
      (await rest().repos.listBranches({ owner, repo })).data
        .map((b) => b.name)
        .filter((b) => b.startsWith("drafts/"));
    expect(await branches()).toEqual([]);

    await sweepsAndRestartWriteNothing();
    expect(await branches()).toEqual([]);
    const pull = (await rest().pulls.get({ owner, repo, pull_number: number })).data;
    expect([pull.state, pull.merged]).toEqual(["closed", false]);
    expect(Object.keys(await tags())).toEqual(["apps/web/v1"]);
    expect((await fileOf(w, `${owner}/${repo}`, "apps/web/cm.yaml")).text).toContain('v: "4"');
  });
});
