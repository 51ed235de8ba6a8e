import { describe, expect, it } from "vitest";
import { configMap, kptfile } from "../util/krm.js";
import { dashboardOf, sweep, useWorld } from "./harness.js";

/** A variant file naming another repository's package as its upstream (issue #76's `steal.yaml`). */
const steal = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: steal
spec:
  upstream: {repo: hidden, package: topsecret, revision: v1}
  downstream: {repo: stolen, package: topsecret}
`;

/**
 * Who may make the bot read what (docs/variants.md): the bot reads with its installation's token, which
 * reaches every repository of the installation, but a variant file makes it read another repository only
 * when everyone who may push the variant files could read it themselves. alice and bob write
 * acme/blueprints; acme/hidden is private and only bob may read it (he maintains it); alice pushes a variant that would copy
 * hidden's package into acme/stolen, where she writes.
 */
describe("fan-out reads for a variant file only what its writers may read (forge over HTTP and git)", () => {
  const w = useWorld({ "hello/Kptfile": kptfile("hello"), "hello/cm.yaml": configMap("hello", { a: "b" }) });

  const stolenPulls = async () =>
    (await w.users.alice!.rest.pulls.list({ owner: "acme", repo: "stolen", state: "all" })).data;

  it("a variant naming a private repository one of the variant files' writers cannot read clones nothing, and the dashboard says why", async () => {
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
    await w.settle();

    const blueprints = await w.clone("alice");
    await blueprints.push("main", { ".porchlight/variants/steal.yaml": steal }, "main");
    await w.settle();
    await sweep(w);

    expect(await stolenPulls()).toEqual([]);
    const branches = await w.users.alice!.rest.repos.listBranches({ owner: "acme", repo: "stolen" });
    expect(branches.data.map((b) => b.name)).toEqual(["main"]);
    const dashboard = await dashboardOf(w);
    expect(dashboard).toContain("steal");
    expect(dashboard).toContain("acme/hidden is private and alice");

    // once every writer of the variant files may read it, the same variant is honoured
    w.forge.setPermission("acme/hidden", "alice", "read");
    await sweep(w);
    const [pr] = await stolenPulls();
    expect(pr?.head.ref).toBe("porchlight/variant/topsecret/steal");
  }, 120_000);
});
