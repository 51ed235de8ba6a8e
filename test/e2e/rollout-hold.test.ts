import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, sweep as sweepAll, sweepWrites, type World } from "./harness.js";

/**
 * `/rollout hold` and `/rollout resume` on the dashboard issue over real HTTP and git: a hold (write
 * permission; a read-only user is refused with a reply) keeps a newly published revision's pull request
 * from opening, sweep after sweep, without writing anything; `/rollout resume` lets it open, and a sweep
 * after that writes nothing.
 */
const CONFIG = `rollout:
  steps:
    - name: dev
      labels: {env: dev}
`;
const pv = (pkg: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: dev-1-${pkg}
  labels: {env: dev}
spec:
  upstream: {package: ${pkg}, channel: stable}
  downstream: {repo: dev-1, package: ${pkg}}
`;
const kptfile = (pkg: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${pkg}\n`;
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;

describe("/rollout hold and resume on the dashboard issue (forge over HTTP and git)", () => {
  let w: World;
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const sweep = () => sweepAll(w);
  const openPulls = async () =>
    (await rest().pulls.list({ owner, repo: "dev-1", state: "open" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const openBranches = async () => (await openPulls()).map((p) => p.head.ref).sort();
  const dashboard = async () => {
    const issues = (
      await rest().issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    expect(issues).toHaveLength(1);
    return issues[0]!;
  };
  const labels = async () => (await dashboard()).labels.map((l) => (typeof l === "string" ? l : l.name));
  let n = 0;
  const publish = async (pkg: string, v: string) => {
    const { number } = await w.propose(`drafts/${pkg}/v${++n}`, { [`${pkg}/cm.yaml`]: cm(v) });
    const reply = await w.say("bob", number, "/approve");
    if (!reply.includes("Published")) throw new Error(reply);
  };
  const mergeAll = async () => {
    for (const p of await openPulls())
      await rest().pulls.merge({ owner, repo: "dev-1", pull_number: p.number, sha: p.head.sha });
    await w.settle();
  };
  const writesOfSweep = () => sweepWrites(w);

  beforeAll(async () => {
    w = await startWorld({
      "README.md": "# blueprints\n",
      ".github/porchlight.yml": CONFIG,
      ".porchlight/variants/dev.yaml": pv("basens"),
      "basens/Kptfile": kptfile("basens"),
      "basens/cm.yaml": cm("0"),
    });
    await w.forge.createRepo("acme/dev-1", { files: { "README.md": "# dev-1\n" } });
    w.forge.setPermission("acme/dev-1", "alice", "write");
    await w.settle();
  }, 60_000);
  afterAll(async () => {
    expect(w?.forge.errors).toEqual([]);
    await w?.stop();
  });

  it("/rollout hold stops pull requests from opening (write permission only); /rollout resume opens them", async () => {
    await publish("basens", "1");
    expect(await openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);
    await mergeAll();
    await sweep();
    const board = await dashboard();

    w.forge.setPermission("acme/blueprints", "rita", "read");
    expect(await w.say("rita", board.number, "/rollout hold")).toContain("needs write permission");
    expect(await labels()).not.toContain("porchlight/rollout-hold");

    expect(await w.say("alice", board.number, "/rollout hold")).toContain("Rollout on hold");
    expect(await labels()).toContain("porchlight/rollout-hold");
    await publish("basens", "2");
    await sweep();
    expect(await openBranches()).toEqual([]);
    expect(await writesOfSweep()).toEqual([]);

    expect(await w.say("alice", board.number, "/rollout resume")).toContain("Rollout resumed");
    await sweep();
    expect(await labels()).not.toContain("porchlight/rollout-hold");
    expect(await openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);
    expect(await writesOfSweep()).toEqual([]);
  }, 60_000);
});
