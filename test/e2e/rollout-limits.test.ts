import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, sweep as sweepAll, sweepWrites, type World } from "./harness.js";

/**
 * prConcurrentLimit over real HTTP and git: two packages fan out to one downstream
 * repository with `prConcurrentLimit: 1`, so one update pull request is open and the other is held back
 * and listed on the dashboard until the first merges; a sweep with nothing to do then writes nothing.
 */
const CONFIG = `rollout:
  prConcurrentLimit: 1
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

describe("prConcurrentLimit across packages (forge over HTTP and git)", () => {
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
      ".porchlight/variants/dev.yaml": [pv("basens"), pv("web")].join("---\n"),
      "basens/Kptfile": kptfile("basens"),
      "basens/cm.yaml": cm("0"),
      "web/Kptfile": kptfile("web"),
      "web/cm.yaml": cm("0"),
    });
    await w.forge.createRepo("acme/dev-1", { files: { "README.md": "# dev-1\n" } });
    w.forge.setPermission("acme/dev-1", "alice", "write");
    await w.settle();
  }, 60_000);
  afterAll(async () => {
    expect(w?.forge.errors).toEqual([]);
    await w?.stop();
  });

  it("prConcurrentLimit: one open per repository, the other held and listed, opened once the first merges", async () => {
    await publish("basens", "1");
    await publish("web", "1");
    expect(await openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);
    expect((await dashboard()).body).toContain("- dev: dev-1/web — prConcurrentLimit: 1 open in dev-1");

    expect(await writesOfSweep()).toEqual([]); // still one open: nothing changes
    expect(await openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);

    await mergeAll();
    await sweep();
    expect(await openBranches()).toEqual(["porchlight/variant/web/dev-1-web"]);
    expect((await dashboard()).body).not.toContain("Held back by a limit");
    expect(await writesOfSweep()).toEqual([]);
  }, 60_000);
});
