import { describe, expect, it } from "vitest";
import { blobId } from "../../src/github/git-objects.js";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { summarizePackage } from "../../src/jobs/check-proposal/summarize.js";
import { type FileTree, treeFromText } from "../../src/kpt/tree.js";
import { fakeRepoWith } from "./fake-repo.js";
import { cm, jobContext, KPTFILE, proposalOf } from "./helpers.js";

const BRANCH = "drafts/apps/web/edit-1";
const R = "# rendered\n";

function setup(files: Record<string, string> = { "apps/web/cm.yaml": `${cm("web")}${R}` }, branch = BRANCH) {
  const repo = fakeRepoWith({
    "README.md": "hi\n",
    "apps/web/Kptfile": KPTFILE,
    "apps/web/cm.yaml": `${cm("web")}${R}`,
  });
  repo.refs.set("refs/tags/apps/web/v1", repo.resolve("main"));
  return proposalOf(repo, branch, files);
}

describe("proposal checks", () => {
  it("passes render and guardrails and writes one summary naming the next revision", async () => {
    const { repo, pr, ctx } = setup({ "apps/web/extra.yaml": `${cm("extra")}${R}` });
    const outcome = await checkProposal(ctx, { pull: pr.number });
    expect(outcome).toMatchObject({
      kind: "checked",
      render: true,
      guardrails: true,
      packages: ["apps/web"],
    });
    expect(repo.runsOn(pr.headSha).map((r) => [r.name, r.conclusion])).toEqual([
      ["porchlight/render", "success"],
      ["porchlight/guardrails", "success"],
    ]);
    const comments = repo.commentsOn(pr.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain("apps/web/v2");
    expect(comments[0]?.body).toContain("extra");
  });

  it("fails render when committed files are not the rendered output, annotating each file", async () => {
    // A branch porchlight does not render (no draft's): its proposal's render is the check's to verify.
    const { repo, pr, ctx } = setup({ "apps/web/cm.yaml": cm("web2") }, "edit-web");
    const outcome = await checkProposal(ctx, { pull: pr.number });
    expect(outcome).toMatchObject({ render: false });
    const [run] = repo.runsOn(pr.headSha, "porchlight/render");
    expect(run?.conclusion).toBe("failure");
    expect(run?.annotations).toContainEqual(
      expect.objectContaining({
        path: "apps/web/cm.yaml",
        annotation_level: "failure",
        title: "not rendered",
      }),
    );
  });

  it("fails guardrails that reject the package", async () => {
    const { repo, pr } = setup({ "apps/web/cm.yaml": `${cm("web", "  b: forbidden\n")}${R}` });
    const ctx = jobContext(repo, { guardrails: [{ image: "kubeconform", name: "schema" }] });
    const outcome = await checkProposal(ctx, { pull: pr.number });
    expect(outcome).toMatchObject({ render: true, guardrails: false });
    expect(repo.runsOn(pr.headSha, "porchlight/guardrails")[0]?.annotations[0]).toMatchObject({
      path: "apps/web/cm.yaml",
      title: "schema",
    });
  });

  it("refuses to run exec functions from a fork", async () => {
    const { repo, pr } = setup({ "apps/web/Kptfile": `${KPTFILE}pipeline:\n  mutators:\n    - exec: ./x\n` });
    repo.pulls.get(pr.number)!.headRepo = "mallory/blueprints";
    const ctx = jobContext(repo);
    await checkProposal(ctx, { pull: pr.number });
    expect(ctx.renderer.renders).toBe(0);
    expect(repo.runsOn(pr.headSha, "porchlight/render")[0]?.summary).toContain("fork");
  });

  it("run again on the same head changes nothing and edits the summary in place after a push", async () => {
    const { repo, pr, ctx } = setup();
    await checkProposal(ctx, { pull: pr.number });
    const again = await checkProposal(ctx, { pull: pr.number });
    expect(again.kind).toBe("skipped");
    expect(ctx.renderer.renders).toBe(1);
    repo.commit(BRANCH, { "apps/web/more.yaml": `${cm("more")}${R}` });
    await checkProposal(ctx, { pull: pr.number });
    expect(repo.commentsOn(pr.number)).toHaveLength(1);
    expect(repo.commentsOn(pr.number)[0]?.body).toContain("more");
    expect(repo.checkRuns.filter((r) => r.name === "porchlight/render")).toHaveLength(2);
  });

  it("checks the pull request its event carried without reading it; a push since, it checks the new head", async () => {
    const { repo, pr, ctx } = setup();
    const seen = { ...pr };
    repo.calls.length = 0;
    expect(await checkProposal(ctx, { pull: pr.number, seen })).toMatchObject({ kind: "checked" });
    expect(repo.calls).not.toContain("getPull");
    // a stale event (delivered again after a push): the branch is no longer at its head, so it is read
    const pushed = repo.commit(BRANCH, { "apps/web/more.yaml": `${cm("more")}${R}` });
    const again = await checkProposal(ctx, { pull: pr.number, seen });
    expect(again).toMatchObject({ kind: "checked", headSha: pushed });
    expect(repo.commentsOn(pr.number)).toHaveLength(1);
    expect(repo.commentsOn(pr.number)[0]?.body).toContain("more");
  });

  it("ignores pull requests that touch no package", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    repo.branch("docs", "main");
    repo.commit("docs", { "README.md": "more\n" });
    const pr = repo.openPull("docs");
    expect((await checkProposal(jobContext(repo), { pull: pr.number })).kind).toBe("skipped");
  });
});

describe("package change summary", () => {
  const deployment = (image: string, ns = "prod") =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ${ns}\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: ${image}\n`;
  const role =
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n  namespace: prod\nrules:\n  - verbs: [get, list]\n    resources: [pods]\n";

  it("lists added, changed and removed resources, images, RBAC and namespaces", () => {
    const s = summarizePackage({
      package: "apps/web",
      base: treeFromText({ "d.yaml": deployment("nginx:1.0"), "old.yaml": cm("old") }),
      head: treeFromText({
        "d.yaml": deployment("nginx:1.1"),
        "role.yaml": role,
        "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n",
      }),
      revision: 3,
    });
    expect(s.revision).toBe(3);
    expect(s.resources.map((r) => `${r.change} ${r.resource.kind}/${r.resource.name}`).sort()).toEqual([
      "added Namespace/extra",
      "added Role/reader",
      "changed Deployment/web",
      "removed ConfigMap/old",
    ]);
    expect(s.images).toEqual([
      {
        resource: expect.objectContaining({ kind: "Deployment" }),
        container: "app",
        from: "nginx:1.0",
        to: "nginx:1.1",
      },
    ]);
    expect(s.rbac).toEqual([expect.objectContaining({ change: "added", details: ["get, list on pods"] })]);
    expect(s.namespaces).toEqual({ added: ["extra"], removed: [] });
  });

  it("compares push after push by the files' blob ids: each change seen, a moved resource no change", () => {
    const blobs = (tree: FileTree) => new Map([...tree].map(([path, bytes]) => [path, blobId(bytes)]));
    const base = treeFromText({ "d.yaml": deployment("nginx:1.0"), "a.yaml": cm("a"), "b.yaml": cm("b") });
    const summarize = (files: Record<string, string>) => {
      const head = treeFromText(files);
      const s = summarizePackage({
        package: "apps/web",
        base,
        head,
        baseBlobs: blobs(base),
        headBlobs: blobs(head),
      });
      return s.resources.map((r) => `${r.change} ${r.resource.kind}/${r.resource.name} in ${r.file}`).sort();
    };
    const first = { "d.yaml": deployment("nginx:1.1"), "a.yaml": cm("a"), "b.yaml": cm("b") };
    expect(summarize(first)).toEqual(["changed Deployment/web in d.yaml"]);
    // the next push: the deployment back as the base has it, a ConfigMap changed, one moved to another file
    const second = { "d.yaml": deployment("nginx:1.0"), "a.yaml": cm("a2"), "moved/b.yaml": cm("b") };
    expect(summarize(second)).toEqual(["added ConfigMap/a2 in a.yaml", "removed ConfigMap/a in a.yaml"]);
    const third = { ...second, "d.yaml": deployment("nginx:1.2", "staging") };
    expect(summarize(third)).toEqual([
      "added ConfigMap/a2 in a.yaml",
      "added Deployment/web in d.yaml",
      "removed ConfigMap/a in a.yaml",
      "removed Deployment/web in d.yaml",
    ]);
    // a.yaml's bytes, read before, now at another path: the change names the file they are in now
    const { "a.yaml": a2, ...rest } = third;
    expect(summarize({ ...rest, "renamed.yaml": a2 })).toEqual([
      "added ConfigMap/a2 in renamed.yaml",
      "added Deployment/web in d.yaml",
      "removed ConfigMap/a in a.yaml",
      "removed Deployment/web in d.yaml",
    ]);
  });
});
