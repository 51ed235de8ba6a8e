import { describe, expect, it } from "vitest";
import { reconcileFanout } from "../../../src/jobs/fanout/index.js";
import { parseVariantPullRequestBody } from "../../../src/variants/index.js";
import { configMap, kptfile, packageVariant } from "../../util/krm.js";
import { FakeInstallation, fanoutContext, publish, WRITES } from "./fake-installation.js";

const KPTFILE = kptfile("basens");
const cm = (data: Record<string, string>) => configMap("settings", data);

const variant = (name: string, repo: string, extra = "") =>
  packageVariant({ name, upstream: "basens", revision: "v1", repo, extra });

function world(
  variants = [
    variant("basens-01", "cluster-01"),
    variant("basens-02", "cluster-02"),
    variant("basens-03", "cluster-03", "  paused: true\n"),
  ],
) {
  const inst = new FakeInstallation();
  const up = inst.add("blueprints", {
    "README.md": "# blueprints\n",
    ".porchlight/variants/basens.yaml": variants.join("---\n"),
  });
  publish(up, "basens", 1, {
    Kptfile: KPTFILE,
    "cm.yaml": cm({ a: "1" }),
    "README.md": "line one\nline two\n",
  });
  for (const c of ["cluster-01", "cluster-02", "cluster-03"]) inst.add(c);
  return { inst, up, ctx: fanoutContext(inst) };
}

function setVariantRevision(w: ReturnType<typeof world>, revision: string) {
  const text = w.up.files("main")[".porchlight/variants/basens.yaml"] as string;
  w.up.commit("main", {
    ".porchlight/variants/basens.yaml": text.replace(/revision: v\d+/g, `revision: ${revision}`),
  });
}

function mergeAll(w: ReturnType<typeof world>) {
  for (const { repo } of w.inst.repos.values())
    for (const pr of repo.pulls.values())
      if (pr.state === "open")
        void repo.mergePull(pr.number, { sha: repo.resolve(pr.headRef), method: "merge" });
}

describe("fan-out reconciler", () => {
  it("clones into absent downstreams with one labelled pull request each, and skips a paused variant", async () => {
    const w = world();
    const report = await reconcileFanout(w.ctx, "blueprints");
    expect(report.failures).toEqual([]);
    const c1 = w.inst.get("cluster-01");
    const [pr] = [...c1.pulls.values()];
    expect(pr).toMatchObject({
      headRef: "porchlight/variant/basens/basens-01",
      title: "Clone blueprints/basens v1 into basens",
      labels: ["porchlight/update", "porchlight/automated"],
    });
    const files = c1.files(pr!.headRef, "basens");
    expect(files.Kptfile).toContain("ref: basens/v1");
    expect(files.Kptfile).toContain("porchlight.dev/package-variant: basens-01");
    expect(files["cm.yaml"]).toContain("# rendered");
    expect(parseVariantPullRequestBody(pr!.body)).toMatchObject({
      kind: "clone",
      to: "v1",
      variant: "basens-01",
    });
    expect(w.inst.get("cluster-02").pulls.size).toBe(1);
    expect(w.inst.get("cluster-03").pulls.size).toBe(0);
    const dashboard = w.up.issues[0]!;
    expect(dashboard.body).toContain("⏸️ paused");
    expect(dashboard.body).toContain("acme/cluster-01#");
    expect(dashboard.body).toContain("```mermaid");
  });

  it("a clone into a deployment repository names the downstream package in its package context, as Porch's clone there", async () => {
    const inst = new FakeInstallation();
    const up = inst.add("blueprints", {
      ".porchlight/variants/basens.yaml": [
        variant("a", "cluster-01").replace("package: basens}", "package: ns-a}"),
        variant("b", "cluster-02").replace("package: basens}", "package: ns-b}"),
      ].join("---\n"),
    });
    publish(up, "basens", 1, {
      Kptfile: KPTFILE,
      "package-context.yaml":
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: basens\n  env: upstream\n',
    });
    inst.add("cluster-01", { ".github/porchlight.yml": "deployment: true\n" });
    inst.add("cluster-02");
    expect((await reconcileFanout(fanoutContext(inst), "blueprints")).failures).toEqual([]);
    const contextOf = (repo: string, pkg: string) => {
      const r = inst.get(repo);
      const [pr] = [...r.pulls.values()];
      return r.files(pr!.headRef, pkg)["package-context.yaml"] ?? "";
    };
    // As kpt pkg get --for-deployment writes it: generated anew, the upstream's other keys gone.
    expect(contextOf("cluster-01", "ns-a")).toContain("data:\n  name: ns-a\n");
    expect(contextOf("cluster-01", "ns-a")).not.toContain("env: upstream");
    // Not a deployment repository: the upstream's context, as Porch and kpt pkg get leave it.
    expect(contextOf("cluster-02", "ns-b")).toContain("  name: basens\n  env: upstream\n");
  });

  it("clones the revision published from a workspace, and the latest where the upstream names none", async () => {
    const inst = new FakeInstallation();
    const up = inst.add("blueprints", {
      ".porchlight/variants/basens.yaml": [
        variant("by-ws", "cluster-01").replace("revision: v1", "workspaceName: first"),
        variant("latest", "cluster-02").replace(", revision: v1", ""),
      ].join("---\n"),
    });
    for (const [n, ws] of [
      [1, "first"],
      [2, "second"],
    ] as const) {
      const files = { "basens/Kptfile": KPTFILE, "basens/cm.yaml": cm({ n: String(n) }) };
      const sha = up.commit(
        "main",
        files,
        `publish\n\nkpt:{"package":"basens","workspaceName":"${ws}","revision":"${n}"}`,
      );
      up.refs.set(`refs/tags/basens/v${n}`, sha);
    }
    inst.add("cluster-01");
    inst.add("cluster-02");
    expect((await reconcileFanout(fanoutContext(inst), "blueprints")).failures).toEqual([]);
    const cloned = (repo: string) => {
      const [pr] = [...inst.get(repo).pulls.values()];
      return parseVariantPullRequestBody(pr?.body ?? "");
    };
    expect(cloned("cluster-01")).toMatchObject({ kind: "clone", to: "v1" });
    expect(cloned("cluster-02")).toMatchObject({ kind: "clone", to: "v2" });
  });

  it("selects downstreams by the labels of their registrations in the namespace's .porchlight repository, and expressions read them and the upstream revision's", async () => {
    const inst = new FakeInstallation();
    const up = inst.add("blueprints", {
      ".porchlight/variants/fleet.yaml": `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: fleet}
spec:
  upstream: {package: basens, revision: 1}
  targets:
  - repositorySelector:
      matchExpressions: [{key: env, operator: In, values: [prod]}]
    template:
      annotationExprs:
      - {key: region, valueExpr: repository.annotations.region}
      - {key: vendor, valueExpr: "upstream.name + ' by ' + upstream.labels.vendor"}
`,
    });
    publish(up, "basens", 1, { Kptfile: KPTFILE });
    const registration = (name: string, env: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: ${name}
  namespace: acme
  labels: {env: ${env}}
  annotations: {region: eu-${name}}
spec:
  content: Package
  type: git
  git: {repo: "https://forge.test/acme/${name}.git", branch: main, directory: /}
`;
    inst.add(".porchlight", {
      "repositories/cluster-01.yaml": registration("cluster-01", "prod"),
      "repositories/cluster-02.yaml": registration("cluster-02", "dev"),
      // The upstream revision's labels, as `rpkg annotate` keeps them.
      "packagerevisions/blueprints.basens.v1.yaml":
        "apiVersion: porch.kpt.dev/v1alpha1\nkind: PackageRevision\nmetadata:\n  name: blueprints.basens.v1\n  labels: {vendor: bigco}\n",
    });
    inst.add("cluster-01");
    inst.add("cluster-02");
    expect((await reconcileFanout(fanoutContext(inst), "blueprints")).failures).toEqual([]);
    const [pr] = [...inst.get("cluster-01").pulls.values()];
    expect(pr?.title).toBe("Clone blueprints/basens v1 into basens");
    expect(inst.get("cluster-01").files(pr?.headRef ?? "", "basens").Kptfile).toContain(
      "region: eu-cluster-01",
    );
    expect(inst.get("cluster-02").pulls.size).toBe(0);
  });

  it("fans out to one downstream per object an objectSelector picks from the management repository", async () => {
    const inst = new FakeInstallation();
    const cluster = (name: string, tier: string) =>
      `apiVersion: infra.example.com/v1\nkind: Cluster\nmetadata:\n  name: ${name}\n  labels: {tier: ${tier}}\n`;
    const up = inst.add("blueprints", {
      "clusters/all.yaml": `${cluster("cluster-01", "edge")}---\n${cluster("cluster-02", "core")}`,
      ".porchlight/variants/fleet.yaml": `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: fleet}
spec:
  upstream: {package: basens, revision: 1}
  targets:
  - objectSelector: {apiVersion: infra.example.com/v1, kind: Cluster, matchLabels: {tier: edge}}
    template:
      downstream: {packageExpr: "'ns-' + target.labels.tier"}
`,
    });
    publish(up, "basens", 1, { Kptfile: KPTFILE });
    inst.add("cluster-01");
    inst.add("cluster-02");
    expect((await reconcileFanout(fanoutContext(inst), "blueprints")).failures).toEqual([]);
    const [pr] = [...inst.get("cluster-01").pulls.values()];
    expect(pr?.title).toBe("Clone blueprints/basens v1 into ns-edge");
    expect(inst.get("cluster-02").pulls.size).toBe(0);
  });

  it("makes no write call when run again with nothing to do", async () => {
    const w = world();
    await reconcileFanout(w.ctx, "blueprints");
    w.inst.clearCalls();
    const report = await reconcileFanout(w.ctx, "blueprints");
    expect(w.inst.calls().filter((c) => WRITES.includes(c.split(":")[1]!))).toEqual([]);
    expect(report.dashboard?.action).toBe("unchanged");
  });

  it("merges a new revision into local edits, lists a conflict with file and lines, and updates the same pull requests for a newer one", async () => {
    const w = world();
    await reconcileFanout(w.ctx, "blueprints");
    mergeAll(w);
    const c1 = w.inst.get("cluster-01");
    const c2 = w.inst.get("cluster-02");
    const local1 = c1.files("main", "basens")["cm.yaml"]!.replace('a: "1"', 'a: "1"\n  local: "yes"');
    c1.commit("main", { "basens/cm.yaml": local1 });
    c2.commit("main", { "basens/README.md": "line one\nline two changed downstream\n" });
    publish(w.up, "basens", 2, {
      "cm.yaml": cm({ a: "1", b: "2" }),
      "README.md": "line one\nline two changed upstream\n",
    });
    setVariantRevision(w, "v2");

    await reconcileFanout(w.ctx, "blueprints");
    const pr1 = [...c1.pulls.values()].find((p) => p.state === "open")!;
    expect(pr1.title).toBe("Update basens from v1 to v2 (blueprints/basens)");
    const cm1 = c1.files(pr1.headRef, "basens")["cm.yaml"]!;
    expect(cm1).toContain('local: "yes"');
    expect(cm1).toContain('b: "2"');
    expect(pr1.body).not.toContain("Conflicts");
    const pr2 = [...c2.pulls.values()].find((p) => p.state === "open")!;
    expect(pr2.body).toMatch(/Conflicts \(1\)[\s\S]*`basens\/README.md` line/);
    expect(c2.files(pr2.headRef, "basens")["README.md"]).toContain("<<<<<<<");

    publish(w.up, "basens", 3, { "cm.yaml": cm({ a: "1", b: "3" }) });
    setVariantRevision(w, "v3");
    w.inst.clearCalls();
    await reconcileFanout(w.ctx, "blueprints");
    expect([...c1.pulls.values()].filter((p) => p.state === "open").map((p) => p.number)).toEqual([
      pr1.number,
    ]);
    expect(c1.pulls.get(pr1.number)!.title).toBe("Update basens from v1 to v3 (blueprints/basens)");
    expect(c1.files(pr1.headRef, "basens")["cm.yaml"]).toContain('b: "3"');
    expect(w.inst.calls()).not.toContain("cluster-01:createPull");
  });

  it("leaves a pull request with commits from others alone, saying so on it once", async () => {
    const w = world([variant("basens-01", "cluster-01")]);
    await reconcileFanout(w.ctx, "blueprints");
    const c1 = w.inst.get("cluster-01");
    c1.commit("porchlight/variant/basens/basens-01", { "basens/extra.txt": "mine\n" });
    publish(w.up, "basens", 2, { "cm.yaml": cm({ a: "2" }) });
    setVariantRevision(w, "v2");
    w.inst.clearCalls();
    const writes = () =>
      w.inst.calls().filter((c) => c.startsWith("cluster-01:") && WRITES.includes(c.split(":")[1]!));
    const report = await reconcileFanout(w.ctx, "blueprints");
    // Nothing pushed and the proposal not rewritten: only the label and the line that say so.
    expect(writes()).toEqual(["cluster-01:addLabels", "cluster-01:updatePull"]);
    const pr = [...c1.pulls.values()].find((p) => p.state === "open")!;
    expect(pr.labels).toContain("porchlight/edited");
    expect(pr.body).toContain("Fan-out no longer updates this pull request");
    expect(c1.files(pr.headRef, "basens")["extra.txt"]).toBe("mine\n");
    expect(report.actions[0]).toMatchObject({
      kind: "nothing",
      reason: expect.stringContaining("commits from others"),
    });
    w.inst.clearCalls();
    await reconcileFanout(w.ctx, "blueprints");
    expect(writes()).toEqual([]);
  });

  it("proposes deleting the downstream of a removed variant", async () => {
    const w = world([variant("basens-01", "cluster-01")]);
    await reconcileFanout(w.ctx, "blueprints");
    mergeAll(w);
    w.up.commit("main", { ".porchlight/variants/basens.yaml": "# no variants any more\n" });
    await reconcileFanout(w.ctx, "blueprints");
    const c1 = w.inst.get("cluster-01");
    const pr = [...c1.pulls.values()].find((p) => p.state === "open")!;
    expect(pr.labels).toContain("porchlight/deletion");
    expect(Object.keys(c1.files(pr.headRef, "basens"))).toEqual([]);
  });

  it("closes the never-published proposal of a removed variant (deletionPolicy delete) and deletes its branch, and leaves an orphan's open", async () => {
    const w = world([
      variant("basens-01", "cluster-01"),
      variant("basens-02", "cluster-02", "  deletionPolicy: orphan\n"),
    ]);
    await reconcileFanout(w.ctx, "blueprints");
    w.up.commit("main", { ".porchlight/variants/basens.yaml": "# no variants any more\n" });
    const report = await reconcileFanout(w.ctx, "blueprints");
    const c1 = w.inst.get("cluster-01");
    const [discarded] = [...c1.pulls.values()];
    expect(discarded?.state).toBe("closed");
    expect(c1.refs.has(`refs/heads/${discarded?.headRef}`)).toBe(false);
    const [kept] = [...w.inst.get("cluster-02").pulls.values()];
    expect(kept?.state).toBe("open");
    expect(report.actions.map((a) => [a.variant, a.kind])).toEqual([
      ["basens-01", "nothing"],
      ["basens-02", "nothing"],
    ]);
    expect(report.actions[0]?.reason).toContain("never published, is closed and its branch deleted");
    expect(report.actions[1]?.reason).toContain("never published, stays open and is no longer updated");
    // Converged: a run after that does nothing more.
    w.inst.clearCalls();
    await reconcileFanout(w.ctx, "blueprints");
    expect(w.inst.calls().filter((c) => WRITES.includes(c.split(":")[1]!))).toEqual([]);
  });

  it("reports a broken variant file on the dashboard and still fans out the others", async () => {
    const w = world([variant("basens-01", "cluster-01"), variant("basens-x", "nowhere")]);
    const report = await reconcileFanout(w.ctx, "blueprints");
    expect(w.inst.get("cluster-01").pulls.size).toBe(1);
    expect(w.up.issues[0]!.body).toMatch(
      /\.porchlight\/variants\/basens\.yaml:\d+:\d+: spec\.downstream\.repo/,
    );
    expect(report.actions.find((a) => a.variant === "basens-x")).toMatchObject({ kind: "skip" });
  });
});

describe("auto-publish", () => {
  it("publishes an update pull request once every check passed, tagging the downstream package", async () => {
    const w = world([
      variant("basens-01", "cluster-01").replace(
        "  name: basens-01\n",
        '  name: basens-01\n  annotations: {porchlight.dev/auto-publish: "true"}\n',
      ),
    ]);
    await reconcileFanout(w.ctx, "blueprints");
    const c1 = w.inst.get("cluster-01");
    const pr = [...c1.pulls.values()][0]!;
    const head = c1.resolve(pr.headRef);
    /** A check on the proposal's head, completed with `conclusion`. */
    const complete = (name: string, conclusion: "success" | "failure") =>
      c1.upsertCheckRun({ name, headSha: head, status: "completed", conclusion });
    // Fan-out posts the render check with its push; the proposal's guardrails have not run yet.
    expect((await c1.listCheckRuns(head)).map((r) => [r.name, r.conclusion])).toEqual([
      ["porchlight/render", "success"],
    ]);
    await reconcileFanout(w.ctx, "blueprints");
    expect(c1.pulls.get(pr.number)!.state).toBe("open");
    await complete("porchlight/guardrails", "success");
    await complete("porchlight/render", "failure");
    await reconcileFanout(w.ctx, "blueprints");
    expect(c1.pulls.get(pr.number)!.state).toBe("open");
    await complete("porchlight/render", "success");
    const report = await reconcileFanout(w.ctx, "blueprints");
    expect(c1.pulls.get(pr.number)).toMatchObject({ merged: true });
    expect(Object.keys(c1.tags())).toEqual(["basens/v1"]);
    expect(report.actions[0]!.reason).toBe("auto-published as basens/v1");
  });
});
