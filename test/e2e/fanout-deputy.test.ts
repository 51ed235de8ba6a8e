import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPorchApi } from "../../src/cli/api.js";
import { configMap, kptfile } from "../util/krm.js";
import { checkRuns, dashboardOf, sweep, sweepWrites, useWorld } from "./harness.js";

/** A variant file naming another repository's package as its upstream (issue #76's `steal.yaml`). */
const variant = (name: string, downstream = "stolen") => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: ${name}
spec:
  upstream: {repo: hidden, package: topsecret, revision: v1}
  downstream: {repo: ${downstream}, package: topsecret}
`;
const steal = variant("steal");

/** Registers acme/blueprints in namespace acme, where Porch's API reads its variant files. */
const registration = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: blueprints
  namespace: acme
spec:
  content: Package
  type: git
  git: {repo: acme/blueprints, branch: main, directory: /}
`;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/**
 * Who may make the bot read what (docs/variants.md): the bot reads with its installation's token, which
 * reaches every repository of the installation, but a variant file makes it read another repository only
 * when everyone who may push the variant files could read it themselves. alice and bob write
 * acme/blueprints; acme/hidden is private and only bob may read it (he maintains it); alice pushes a variant that would copy
 * hidden's package into acme/stolen, where she writes.
 */
describe("fan-out reads for a variant file only what its writers may read (forge over HTTP and git)", () => {
  const w = useWorld({ "hello/Kptfile": kptfile("hello"), "hello/cm.yaml": configMap("hello", { a: "b" }) });
  let api: Awaited<ReturnType<typeof startPorchApi>>;

  beforeAll(async () => {
    await w.forge.createRepo("acme/hidden", {
      files: {
        "topsecret/Kptfile": kptfile("topsecret"),
        "topsecret/secret.yaml": configMap("s", { key: "s3cr3t" }),
      },
      private: true,
    });
    w.forge.setPermission("acme/hidden", "bob", "write");
    const hidden = await w.clone("bob", "acme/hidden");
    await hidden.git("tag", "topsecret/v1");
    await hidden.git("push", "-q", "origin", "topsecret/v1");
    await w.forge.createRepo("acme/stolen", { files: { "README.md": "# stolen\n" }, private: true });
    w.forge.setPermission("acme/stolen", "alice", "write");
    await w.forge.createRepo("acme/.porchlight", {
      files: { "repositories/blueprints.yaml": registration },
    });
    for (const u of ["alice", "rita"]) w.forge.setPermission("acme/.porchlight", u, "read");
    await w.settle();
    api = await startPorchApi({ host: "127.0.0.1", port: 0, apiUrl: w.forge.apiUrl, env: {} });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const stolenPulls = async () =>
    (await w.users.alice!.rest.pulls.list({ owner: "acme", repo: "stolen", state: "all" })).data;

  /** The status of PackageVariant `name` in namespace acme, as `user` gets it from Porch's API. */
  const statusOf = (name: string, user: "alice" | "rita") =>
    new Promise<{ conditions: Condition[]; downstreamTargets?: { name: string }[] }>((resolve, reject) => {
      const req = request(
        `${api.url}/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/packagevariants/${name}`,
        {
          ...(api.caPem ? { ca: api.caPem } : {}),
          headers: { authorization: `Bearer ${w.users[user]?.pat ?? ""}` },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => {
            if (res.statusCode !== 200) reject(new Error(`${res.statusCode}: ${text}`));
            else resolve((JSON.parse(text) as { status: never }).status);
          });
        },
      );
      req.on("error", reject);
      req.end();
    });

  it("fails the porchlight/variants check of a pull request adding such a variant, naming the repository, the writer and what to do", async () => {
    const { number } = await w.propose("peek", { ".porchlight/variants/peek.yaml": variant("peek") });
    const { data: pr } = await w.users.alice!.rest.pulls.get({
      owner: "acme",
      repo: "blueprints",
      pull_number: number,
    });
    const check = (await checkRuns(w, pr.head.sha)).find((r) => r.name === "porchlight/variants");
    expect(check?.conclusion).toBe("failure");
    expect(check?.output.summary).toContain("acme/hidden is private and alice");
    expect(check?.output.summary).toContain(
      "give alice (and every other writer of acme/blueprints) read access to acme/hidden",
    );
    await w.users.alice!.rest.pulls.update({
      owner: "acme",
      repo: "blueprints",
      pull_number: number,
      state: "closed",
    });
    await w.settle();
  }, 120_000);

  it("a variant naming a private repository one of the variant files' writers cannot read clones nothing; the dashboard, the pushed commit's check and the variant's status in Porch's API say why", async () => {
    const blueprints = await w.clone("alice");
    const pushed = await blueprints.push("main", { ".porchlight/variants/steal.yaml": steal }, "main");
    await w.settle();
    await sweep(w);

    expect(await stolenPulls()).toEqual([]);
    const branches = await w.users.alice!.rest.repos.listBranches({ owner: "acme", repo: "stolen" });
    expect(branches.data.map((b) => b.name)).toEqual(["main"]);
    const dashboard = await dashboardOf(w);
    expect(dashboard).toContain("steal");
    expect(dashboard).toContain("acme/hidden is private and alice");

    // pushed straight to main, with no pull request: the commit carries the failing check
    const check = (await checkRuns(w, pushed)).find((r) => r.name === "porchlight/variants");
    expect(check?.conclusion).toBe("failure");
    expect(check?.output.title).toBe("1 problem in variant files");
    expect(check?.output.summary).toContain(".porchlight/variants/steal.yaml:6:");
    // the same verdict on the same commit is not written again
    expect((await sweepWrites(w)).filter((r) => r.includes("check-runs"))).toEqual([]);

    // what a controller (kubectl get packagevariant steal -o yaml) sees: the rule, not "Pending"
    // rita only reads acme/blueprints: the dashboard she reads is enough
    const refused = await statusOf("steal", "rita");
    expect(refused.downstreamTargets).toBeUndefined();
    expect(refused.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Stalled", "True", "UpstreamNotAllowed"],
      ["Ready", "False", "UpstreamNotAllowed"],
    ]);
    const said = refused.conditions[1]?.message ?? "";
    expect(said).toMatch(
      /^fan-out does not read acme\/hidden for this variant, and clones or updates nothing \(its last run, on the dashboard issue of acme\/blueprints\): /,
    );
    expect(said).toContain(
      "acme/hidden is private and alice, who may push the variant files of acme/blueprints, cannot read it",
    );
    expect(said).toContain(
      "give alice (and every other writer of acme/blueprints) read access to acme/hidden, or make acme/hidden public",
    );

    // once every writer of the variant files may read it, the same variant is honoured
    w.forge.setPermission("acme/hidden", "alice", "read");
    await sweep(w);
    const [pr] = await stolenPulls();
    expect(pr?.head.ref).toBe("porchlight/variant/topsecret/steal");
    const honoured = await statusOf("steal", "alice");
    expect(honoured.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Stalled", "False", "Valid"],
      ["Ready", "True", "NoErrors"],
    ]);
    expect(honoured.downstreamTargets).toEqual([{ name: "stolen.topsecret.steal" }]);
    const cleared = (await checkRuns(w, pushed)).find((r) => r.name === "porchlight/variants");
    expect(cleared?.conclusion).toBe("success");
    expect(await dashboardOf(w)).not.toContain("porchlight:refused");
  }, 120_000);
});
