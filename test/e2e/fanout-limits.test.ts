import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPorchApi } from "../../src/cli/api.js";
import { configMap, kptfile, packageVariant } from "../util/krm.js";
import { botWrites, checkRuns, dashboardOf, publishDraft, sweepWrites, tagsOf, useWorld } from "./harness.js";

/** The management repository lowers the package limits, as a repository may (docs/config.md "Limits"). */
const CONFIG = "limits:\n  packageFiles: 5\n";
/** `n` ConfigMaps of a package, `cm-<i>.yaml`: with the Kptfile, n + 1 files. */
const cms = (pkg: string, n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${pkg}/cm-${i}.yaml`, configMap(`cm-${i}`, {})]));
const registration = (name: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata: {name: ${name}, namespace: acme}
spec: {content: Package, type: git, git: {repo: acme/${name}, branch: main, directory: /}}
`;

/**
 * Issue 67: a git upstream is held to the package limits as an image or a tarball is. A revision over a
 * limit, published past its failing render check with the merge button, fans out to nothing: no branch
 * and no pull request downstream; its dashboard row and its PackageVariant's status in Porch's API name
 * the limit and the setting that raises it; the same event again and the sweep write nothing. A package
 * within the management repository's limits but over its downstream's gets a proposal whose checks agree:
 * render fails naming the limit, and guardrails point there.
 */
describe("fan-out of a git upstream over the package limits (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;
  const branches = async (r: string) =>
    (await rest().repos.listBranches({ owner, repo: r })).data.map((b) => b.name).sort();
  const openPulls = async (r: string) => (await rest().pulls.list({ owner, repo: r, state: "open" })).data;
  const rowOf = (board: string, downstream: string) =>
    board.split("\n").find((l) => l.startsWith(`| ${downstream} `));
  let api: Awaited<ReturnType<typeof startPorchApi>>;
  /** The PackageVariant `name` as alice reads it through Porch's API, over HTTPS. */
  const packageVariantOf = (name: string) =>
    new Promise<{
      status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
    }>((resolve, reject) => {
      const req = request(
        `${api.url}/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/packagevariants/${name}`,
        { ca: api.caPem, headers: { authorization: `Bearer ${w.users.alice!.pat}` } },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            body += c;
          });
          res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(body))));
        },
      );
      req.on("error", reject);
      req.end();
    });

  const w = useWorld({
    ".github/porchlight.yml": CONFIG,
    ".porchlight/variants/fleet.yaml": [
      packageVariant({ name: "big-01", upstream: "big", repo: "cluster-01" }),
      packageVariant({ name: "small-02", upstream: "small", repo: "cluster-02" }),
    ].join("---\n"),
    "big/Kptfile": kptfile("big"),
    "small/Kptfile": kptfile("small"),
  });
  beforeAll(async () => {
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    // The downstream's own limit is lower than the management repository's.
    await w.forge.createRepo("acme/cluster-02", {
      files: { "README.md": "# cluster-02\n", ".github/porchlight.yml": "limits:\n  packageFiles: 3\n" },
    });
    await w.forge.createRepo("acme/.porchlight", {
      files: {
        "repositories/blueprints.yaml": registration("blueprints"),
        "repositories/cluster-01.yaml": registration("cluster-01"),
      },
    });
    for (const r of ["cluster-01", "cluster-02", ".porchlight"])
      w.forge.setPermission(`acme/${r}`, "alice", "write");
    await w.settle();
    api = await startPorchApi({ host: "127.0.0.1", port: 0, apiUrl: w.forge.apiUrl, env: {} });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    expect(w.forge.errors).toEqual([]);
  });

  it("a revision over packageFiles, merged by hand: no branch, no pull request; the dashboard and the variant's status name the limit and the setting", async () => {
    // 8 files, over the 5 this repository allows: its draft's render check fails; a person merges it anyway.
    const { number } = await w.propose("drafts/big/ws1", cms("big", 7));
    const pr = (await rest().pulls.get({ owner, repo, pull_number: number })).data;
    const [render] = (await checkRuns(w, pr.head.sha)).filter((r) => r.name === "porchlight/render");
    expect(render).toMatchObject({
      conclusion: "failure",
      output: { title: "big is over the packageFiles limit" },
    });
    await rest().pulls.merge({ owner, repo, pull_number: number, sha: pr.head.sha });
    await w.settle();
    expect(Object.keys(await tagsOf(w, "big/"))).toEqual(["big/v1"]);

    expect(await branches("cluster-01")).toEqual(["main"]);
    expect(await openPulls("cluster-01")).toEqual([]);
    const why =
      "reading the upstream acme/blueprints at big/v1: `big`: holds 8 files, more than the limit of 5 files per package (`packageFiles`); split the package into smaller ones, or this repository set it: raise `limits.packageFiles` in .github/porchlight.yml; nothing was pushed";
    const row = rowOf(await dashboardOf(w), "cluster-01/big");
    expect(row).toContain(`| v1 | — | ⚠️ problem: ${why} |`);

    const ready = (await packageVariantOf("big-01")).status?.conditions?.find((c) => c.type === "Ready");
    expect(ready).toEqual({
      type: "Ready",
      status: "False",
      reason: "Error",
      message: `fan-out could not bring v1 to big in acme/cluster-01 (its last run, on the dashboard issue of acme/blueprints): ${why}`,
    });
  }, 120_000);

  it("the merge delivered again, and the sweeps after it, write nothing and open nothing", async () => {
    const merged = w.forge.webhooks.find("pull_request", "closed").at(-1);
    const before = botWrites(w);
    w.forge.webhooks.redeliver(merged!.id);
    await w.settle();
    expect(botWrites(w)).toBe(before);
    expect(await sweepWrites(w)).toEqual([]);
    expect(await sweepWrites(w)).toEqual([]);
    expect(await branches("cluster-01")).toEqual(["main"]);
    expect(await openPulls("cluster-01")).toEqual([]);
  }, 120_000);

  it("a package over its downstream's own limit: the proposal's render check fails naming it, guardrails point there", async () => {
    // 4 files: within the management repository's 5, over cluster-02's 3.
    await publishDraft(w, "drafts/small/ws1", cms("small", 3));
    const [pull] = await openPulls("cluster-02");
    expect(pull?.head.ref).toBe("porchlight/variant/small/small-02");
    const runs = await checkRuns(w, pull!.head.sha, "acme/cluster-02");
    const byName = Object.fromEntries(runs.map((r) => [r.name, r]));
    expect(byName["porchlight/render"]).toMatchObject({
      conclusion: "failure",
      output: { title: "small is over the packageFiles limit" },
    });
    expect(byName["porchlight/render"]!.output.summary).toContain(
      "`small`: holds 4 files, more than the limit of 3 files per package (`packageFiles`); split the package into smaller ones, or this repository set it: raise `limits.packageFiles` in .github/porchlight.yml",
    );
    expect(byName["porchlight/guardrails"]).toMatchObject({ conclusion: "failure" });
    expect(byName["porchlight/guardrails"]!.output.summary).toContain(
      "`small`: not checked, porchlight/render says why",
    );
    // Settled: a sweep renders nothing again to say it passed.
    await sweepWrites(w);
    const again = await checkRuns(w, pull!.head.sha, "acme/cluster-02");
    expect(again.find((r) => r.name === "porchlight/render")).toMatchObject({ conclusion: "failure" });
  }, 120_000);
});
