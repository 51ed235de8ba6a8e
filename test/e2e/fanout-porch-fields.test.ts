import { beforeAll, describe, expect, it } from "vitest";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { docBlock } from "../util/doc-blocks.js";
import { publishDraft, sweep, useWorld } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: hello\n";
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\ndata:\n  greeting: "${v}"\n`;
/** docs/variants.md's worked example: a Porch user's variant file, a registration, the objects. */
const VARIANTS = docBlock(
  "docs/variants.md",
  "# .porchlight/variants/porch.yaml of acme/blueprints, as a Porch user writes it",
).text;
const REGISTRATION = docBlock("docs/variants.md", "# repositories/cluster-01.yaml of acme/.porchlight").text;
const CLUSTERS = docBlock("docs/variants.md", "# clusters/fleet.yaml of acme/blueprints").text;
/** The page's registration of cluster-01 (env: prod), for another repository and env. */
const registration = (name: string, env: string) =>
  REGISTRATION.replaceAll("cluster-01", name).replace("env: prod", `env: ${env}`);
/** The variant file without the two PackageVariants: only the set is left. */
const FLEET_ONLY = VARIANTS.split(/^---\n/m).find((d) => d.includes("kind: PackageVariantSet")) ?? "";

/**
 * Issue 49: a Porch user's variant files, end to end — the fields porchlight once refused, on the forge
 * over HTTP and git with the app answering its webhooks. `upstream.workspaceName` pins the revision
 * published from a workspace, an upstream naming no revision follows the latest, a set selects
 * repositories by the labels of their registrations (`matchLabels`, `matchExpressions`) and objects of the
 * management repository (`objectSelector`), and a removed variant's never-published downstream is
 * discarded (`deletionPolicy: delete`) or left alone (`orphan`). The files are docs/variants.md's worked
 * example, and the assertions its table.
 */
describe("Porch's PackageVariant and PackageVariantSet fields, fanned out (forge over HTTP and git)", () => {
  const rest = () => w.users.alice!.rest;
  /** The fan-out pull requests of `repo`: package → [state, target revision, branch]. */
  const fanout = async (repo: string) => {
    const pulls = (await rest().pulls.list({ owner: "acme", repo, state: "all" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
    return Object.fromEntries(
      pulls.map((p) => {
        const body = parseVariantPullRequestBody(p.body);
        return [body?.downstream.package ?? p.head.ref, [p.state, body?.to, p.head.ref]];
      }),
    );
  };
  const branchExists = async (repo: string, branch: string) =>
    (await rest().repos.listBranches({ owner: "acme", repo })).data.some((b) => b.name === branch);
  let ws = 0;
  const publish = (v: string) => publishDraft(w, `drafts/hello/ws${++ws}`, { "hello/cm.yaml": cm(v) });

  const w = useWorld({
    ".porchlight/variants/porch.yaml": VARIANTS,
    "clusters/fleet.yaml": CLUSTERS,
    "hello/Kptfile": KPTFILE,
    "hello/cm.yaml": cm("draft"),
  });
  beforeAll(async () => {
    await w.forge.createRepo("acme/.porchlight", {
      files: {
        "repositories/cluster-01.yaml": registration("cluster-01", "prod"),
        "repositories/cluster-02.yaml": registration("cluster-02", "dev"),
        "repositories/cluster-03.yaml": registration("cluster-03", "prod"),
      },
    });
    for (const name of ["cluster-01", "cluster-02", "cluster-03", "cluster-04"]) {
      await w.forge.createRepo(`acme/${name}`, { files: { "README.md": `# ${name}\n` } });
      w.forge.setPermission(`acme/${name}`, "alice", "write");
    }
    await w.settle();
    // Before anything is published: each variant skipped, said on the dashboard; nothing proposed.
    await sweep(w);
    const [board] = (
      await rest().issues.listForRepo({ owner: "acme", repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    beforePublish = { board: board?.body ?? "", pulls: await fanout("cluster-01") };
    await publish("one");
  }, 120_000);

  let beforePublish = { board: "", pulls: {} as Record<string, unknown> };

  it("before hello is published, every variant is skipped, and the dashboard says why", () => {
    expect(beforePublish.pulls).toEqual({});
    for (const variant of [
      "by-workspace",
      "latest",
      "fleet-cluster-01-hello-prod",
      "fleet-cluster-02-hello-dev",
      "fleet-cluster-03-hello-prod",
      "fleet-cluster-03-hello-edge",
    ])
      expect(beforePublish.board).toContain(
        `| \`${variant}\` | — | — | — | — | — | ⚠️ problem: repository "blueprints" has no published package "hello" |`,
      );
  });

  it("publishing workspace ws1 proposes every downstream: by workspace, the latest, by labels and by object", async () => {
    const v1 = (variant: string, pkg: string) => ["open", "v1", `porchlight/variant/${pkg}/${variant}`];
    expect(await fanout("cluster-01")).toEqual({
      "hello-ws1": v1("by-workspace", "hello-ws1"),
      "hello-prod": v1("fleet-cluster-01-hello-prod", "hello-prod"),
    });
    expect(await fanout("cluster-02")).toEqual({
      "hello-latest": v1("latest", "hello-latest"),
      "hello-dev": v1("fleet-cluster-02-hello-dev", "hello-dev"),
    });
    // matchLabels env=prod, and the Cluster object cluster-03 labelled tier=edge (cluster-02 is core).
    expect(await fanout("cluster-03")).toEqual({
      "hello-prod": v1("fleet-cluster-03-hello-prod", "hello-prod"),
      "hello-edge": v1("fleet-cluster-03-hello-edge", "hello-edge"),
    });
    // Registered nowhere, named by no object: no label to match, nothing proposed.
    expect(await fanout("cluster-04")).toEqual({});
    const files = await rest().repos.getContent({
      owner: "acme",
      repo: "cluster-01",
      path: "hello-ws1/cm.yaml",
      ref: "porchlight/variant/hello-ws1/by-workspace",
    });
    expect(Buffer.from((files.data as { content: string }).content, "base64").toString()).toContain(
      'greeting: "one"',
    );
  }, 120_000);

  it("publishing ws2 moves only the variant naming no revision; workspace ws1's stay at v1", async () => {
    await publish("two");
    expect((await fanout("cluster-02"))["hello-latest"]).toEqual([
      "open",
      "v2",
      "porchlight/variant/hello-latest/latest",
    ]);
    for (const repo of ["cluster-01", "cluster-03"])
      for (const [state, to] of Object.values(await fanout(repo)))
        expect([state, to]).toEqual(["open", "v1"]);
    expect((await fanout("cluster-02"))["hello-dev"]?.[1]).toBe("v1");
  }, 120_000);

  it("removing variants discards a never-published downstream (deletionPolicy delete) and leaves an orphan's", async () => {
    const clone = await w.clone("alice");
    await clone.push("main", { ".porchlight/variants/porch.yaml": FLEET_ONLY }, "origin/main");
    await w.settle();
    await sweep(w);
    const latest = (await fanout("cluster-02"))["hello-latest"];
    expect(latest?.[0]).toBe("closed");
    expect(await branchExists("cluster-02", "porchlight/variant/hello-latest/latest")).toBe(false);
    // Orphaned: its pull request stays open, and nothing proposes deleting or releasing anything.
    expect((await fanout("cluster-01"))["hello-ws1"]?.[0]).toBe("open");
    expect((await rest().pulls.list({ owner: "acme", repo: "cluster-01", state: "all" })).data).toHaveLength(
      2,
    );
    expect(await branchExists("cluster-01", "porchlight/variant/hello-ws1/by-workspace")).toBe(true);
    // The set's downstreams are untouched.
    expect((await fanout("cluster-02"))["hello-dev"]?.[0]).toBe("open");
    // Converged: another sweep writes nothing more on these pull requests.
    const before = JSON.stringify([await fanout("cluster-01"), await fanout("cluster-02")]);
    await sweep(w);
    expect(JSON.stringify([await fanout("cluster-01"), await fanout("cluster-02")])).toBe(before);
  }, 120_000);
});
