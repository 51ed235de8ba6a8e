import { describe, expect, it } from "vitest";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import type { RenderFinding } from "../../src/jobs/renderer.js";
import type { FileTree } from "../../src/kpt/tree.js";
import { fakeRepoWith } from "./fake-repo.js";
import { cm, jobContext, KPTFILE } from "./helpers.js";

const BRANCH = "drafts/apps/web/edit";
const PKG = "apps/web";

/** A renderer whose functions report one notice per resource file and a warning on `a.yaml`. */
function noticesPerFile(tree: FileTree): RenderFinding[] {
  const out: RenderFinding[] = [];
  for (const path of [...tree.keys()].sort()) {
    if (path === "Kptfile" || path.endsWith(".txt")) continue;
    out.push({ function: "set-labels", severity: "info", message: `labelled ${path}`, file: path, line: 1 });
  }
  out.push({ function: "kubeconform", severity: "warning", message: "deprecated", file: "a.yaml", line: 2 });
  return out;
}

function draft() {
  const repo = fakeRepoWith({ "README.md": "hi\n" });
  repo.branch(BRANCH, "main");
  const files = Object.fromEntries(["a", "b", "c", "d"].map((n) => [`${PKG}/${n}.yaml`, cm(n)]));
  const first = repo.commit(BRANCH, { [`${PKG}/Kptfile`]: KPTFILE, ...files });
  const ctx = jobContext(repo);
  ctx.renderer.render = async (tree) => ({ ok: true, tree, findings: noticesPerFile(tree) });
  const annotated = (sha: string) =>
    (repo.runsOn(sha, "porchlight/render").at(-1)?.annotations ?? [])
      .map((a) => `${a.annotation_level} ${a.path}`)
      .sort();
  return { repo, ctx, first, annotated };
}

describe("the render check annotates info results where the commit changed files", () => {
  it("a draft's first render annotates every result; an edit after it, the edited file's notices and every warning", async () => {
    const { repo, ctx, first, annotated } = draft();
    await renderDraft(ctx, { branch: BRANCH });
    expect(annotated(first)).toEqual([
      ...["a", "b", "c", "d"].map((n) => `notice ${PKG}/${n}.yaml`),
      `warning ${PKG}/a.yaml`,
    ]);

    const edit = repo.commit(BRANCH, { [`${PKG}/c.yaml`]: cm("c", "  b: '2'\n") });
    await renderDraft(ctx, { branch: BRANCH });
    expect(annotated(edit)).toEqual([`notice ${PKG}/c.yaml`, `warning ${PKG}/a.yaml`]);
    const run = repo.runsOn(edit, "porchlight/render").at(-1);
    expect(run?.title).toContain("1 warning");
    expect(run?.summary).toContain("3 info results are on files this commit did not change");

    const outside = repo.commit(BRANCH, { "README.md": "changed\n" });
    await renderDraft(ctx, { branch: BRANCH });
    expect(annotated(outside)).toEqual([`warning ${PKG}/a.yaml`]);
  });

  it("annotates every file again when the commit changed the Kptfile or a file a Kptfile names", async () => {
    const { repo, ctx, annotated } = draft();
    await renderDraft(ctx, { branch: BRANCH });
    const withConfig = `${KPTFILE}pipeline:\n  mutators:\n    - image: set-labels:v0.2\n      configPath: b.yaml\n`;
    const kptfile = repo.commit(BRANCH, { [`${PKG}/Kptfile`]: withConfig });
    await renderDraft(ctx, { branch: BRANCH });
    expect(annotated(kptfile)).toHaveLength(5);
    const config = repo.commit(BRANCH, { [`${PKG}/b.yaml`]: cm("b", "  c: '3'\n") });
    await renderDraft(ctx, { branch: BRANCH });
    expect(annotated(config)).toHaveLength(5);
  });

  it("annotates every file when the parent commit was never checked (two commits pushed at once)", async () => {
    const { repo, ctx, annotated } = draft();
    await renderDraft(ctx, { branch: BRANCH });
    repo.commit(BRANCH, { [`${PKG}/b.yaml`]: cm("b", "  x: '1'\n") });
    const second = repo.commit(BRANCH, { [`${PKG}/c.yaml`]: cm("c", "  x: '1'\n") });
    await renderDraft(ctx, { branch: BRANCH });
    expect(annotated(second)).toHaveLength(5);
  });

  it("the bot's render commit annotates what the push changed and what the render changed", async () => {
    const { repo, ctx, annotated } = draft();
    await renderDraft(ctx, { branch: BRANCH });
    // The pipeline now also rewrites d.yaml.
    ctx.renderer.render = async (tree) => {
      const out = new Map(tree);
      out.set("d.yaml", Buffer.from(cm("d", "  rendered: 'yes'\n")));
      return { ok: true, tree: out, findings: noticesPerFile(out) };
    };
    repo.commit(BRANCH, { [`${PKG}/b.yaml`]: cm("b", "  y: '1'\n") });
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    if (outcome.kind !== "pushed") throw new Error(`expected a push, got ${outcome.kind}`);
    expect(annotated(outcome.commitSha)).toEqual([
      `notice ${PKG}/b.yaml`,
      `notice ${PKG}/d.yaml`,
      `warning ${PKG}/a.yaml`,
    ]);
    expect(annotated(outcome.headSha)).toEqual([`notice ${PKG}/b.yaml`, `warning ${PKG}/a.yaml`]);
  });
});

describe("the proposal's render check annotates info results on the files the proposal changes", () => {
  function proposal(edit: Record<string, string>) {
    const repo = fakeRepoWith({
      "README.md": "hi\n",
      [`${PKG}/Kptfile`]: KPTFILE,
      ...Object.fromEntries(["a", "b", "c", "d"].map((n) => [`${PKG}/${n}.yaml`, cm(n)])),
    });
    // A branch porchlight does not render (no draft's): its proposal's render is the check's to verify.
    repo.branch("edit-web", "main");
    repo.commit("edit-web", edit);
    const pr = repo.openPull("edit-web");
    const ctx = jobContext(repo);
    ctx.renderer.render = async (tree) => ({ ok: true, tree, findings: noticesPerFile(tree) });
    const run = () => repo.runsOn(pr.headSha, "porchlight/render").at(-1);
    const annotated = () => (run()?.annotations ?? []).map((a) => `${a.annotation_level} ${a.path}`).sort();
    return { ctx, pr, run, annotated };
  }

  it("an edit of one file: that file's notices and every warning, the others counted", async () => {
    const { ctx, pr, run, annotated } = proposal({ [`${PKG}/c.yaml`]: cm("c", "  b: '2'\n") });
    await checkProposal(ctx, { pull: pr.number });
    expect(run()?.conclusion).toBe("success");
    expect(annotated()).toEqual([`notice ${PKG}/c.yaml`, `warning ${PKG}/a.yaml`]);
    expect(run()?.summary).toContain("3 info results on files this proposal does not change, not annotated");
  });

  it("a change to the Kptfile: every file's notices", async () => {
    const withLabels = `${KPTFILE}info:\n  description: labelled\n`;
    const { ctx, pr, annotated } = proposal({ [`${PKG}/Kptfile`]: withLabels });
    await checkProposal(ctx, { pull: pr.number });
    expect(annotated()).toHaveLength(5);
  });
});
